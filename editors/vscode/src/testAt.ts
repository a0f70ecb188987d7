// Finds the pytest test around a line ("TestClass::test_name" or "test_name"). Pure.
// A heuristic on indentation; the server also gets the cursor position and may know better.

const DEF = /^\s*(?:async\s+)?def\s+(\w+)\s*\(/;
const CLASS = /^\s*class\s+(\w+)\s*[:(]/;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** The qualified test name enclosing `line` (0-based), or undefined when the line is in no test. */
export function testAt(lines: readonly string[], line: number): string | undefined {
  let minIndent = Infinity; // the smallest indent seen so far: a block opener must be left of it
  let test: string | undefined;
  for (let i = Math.min(line, lines.length - 1); i >= 0; i--) {
    const text = lines[i];
    const trimmed = text.trim();
    if (trimmed === "" || trimmed.startsWith("#")) {
      continue;
    }
    const indent = indentOf(text);
    const encloses = i === line || indent < minIndent;
    if (test === undefined) {
      const def = DEF.exec(text);
      if (def && encloses && def[1].startsWith("test")) {
        test = def[1];
      } else if (indent === 0 && i !== line) {
        return undefined; // reached module level outside any test function
      }
    } else if (indent < minIndent) {
      const cls = CLASS.exec(text);
      if (cls) {
        return `${cls[1]}::${test}`;
      }
      if (indent === 0) {
        return test;
      }
    }
    minIndent = Math.min(minIndent, indent);
  }
  return test;
}
