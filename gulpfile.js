const path = require('path');
const { task, src, dest } = require('gulp');

task('build:icons', copyIcons);

// tsc does not copy non-TypeScript assets: the node and credential icons must sit next to
// the compiled files that reference them with `file:`.
function copyIcons() {
	const nodeSource = path.resolve('nodes', '**', '*.{png,svg}');
	const nodeDestination = path.resolve('dist', 'nodes');
	src(nodeSource).pipe(dest(nodeDestination));

	const credSource = path.resolve('credentials', '**', '*.{png,svg}');
	const credDestination = path.resolve('dist', 'credentials');
	return src(credSource, { allowEmpty: true }).pipe(dest(credDestination));
}
