/**
 * Locates a JSON syntax error the way Python's `json` module reports it (FastAPI's json_invalid
 * error carries its position and message). V8's JSON.parse messages often lack a position, so
 * the text is re-scanned; this only runs on bodies that already failed JSON.parse.
 */

class JsonSyntaxError {
	constructor(
		readonly msg: string,
		readonly pos: number,
	) {}
}

const SCALAR = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null/y;

export function describeJsonError(text: string): { pos: number; msg: string } {
	let i = 0;
	const fail = (msg: string, pos = i): never => {
		throw new JsonSyntaxError(msg, pos);
	};
	const skipWhitespace = (): void => {
		while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
	};

	const string = (): void => {
		const start = i++;
		for (;;) {
			if (i >= text.length) fail('Unterminated string starting at', start);
			const c = text[i];
			if (c === '"') {
				i++;
				return;
			}
			if (c === '\\') {
				const escape = text[i + 1];
				if (escape === 'u') {
					if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) fail('Invalid \\uXXXX escape');
					i += 6;
				} else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) {
					i += 2;
				} else {
					fail('Invalid \\escape');
				}
			} else if (c < ' ') {
				fail('Invalid control character at');
			} else {
				i++;
			}
		}
	};

	const value = (): void => {
		skipWhitespace();
		const c = text[i];
		if (c === '{') return container('}', member);
		if (c === '[') return container(']', value);
		if (c === '"') return string();
		SCALAR.lastIndex = i;
		if (!SCALAR.test(text)) fail('Expecting value');
		i = SCALAR.lastIndex;
	};

	/** An object or array after its opening bracket: items until `close`, comma-separated. */
	const container = (close: string, item: () => void): void => {
		i++;
		skipWhitespace();
		if (text[i] === close) {
			i++;
			return;
		}
		for (;;) {
			item();
			skipWhitespace();
			if (text[i] === close) {
				i++;
				return;
			}
			if (text[i] !== ',') fail("Expecting ',' delimiter");
			i++;
		}
	};
	const member = (): void => {
		skipWhitespace();
		if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
		string();
		skipWhitespace();
		if (text[i] !== ':') fail("Expecting ':' delimiter");
		i++;
		value();
	};

	try {
		value();
		skipWhitespace();
		if (i < text.length) fail('Extra data');
	} catch (error) {
		if (error instanceof JsonSyntaxError) return { pos: error.pos, msg: error.msg };
		// Nesting deep enough to exhaust the stack: still a decode error, just without a position.
		return { pos: 0, msg: 'Expecting value' };
	}
	// Python accepted it where V8 did not (NaN, Infinity, lone surrogates...): no better answer.
	return { pos: 0, msg: 'Expecting value' };
}
