const path = require('path');
const { task, src, dest, parallel } = require('gulp');

// tsc does not copy non-TypeScript assets: the node and credential icons must sit next to
// the compiled files that reference them with `file:`. Each copy returns its stream, so gulp
// waits for both to finish before the build ends.
function iconCopy(folder) {
	const copy = () =>
		src(path.resolve(folder, '**', '*.{png,svg}'), { allowEmpty: true }).pipe(
			dest(path.resolve('dist', folder)),
		);
	copy.displayName = `copy ${folder} icons`;
	return copy;
}

task('build:icons', parallel(iconCopy('nodes'), iconCopy('credentials')));
