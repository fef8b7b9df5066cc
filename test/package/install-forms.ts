// The install forms the docs show (issue 35): every command line in README.md, docs/ and the CLI
// package's README that installs or runs the packed tarball (`npm install -g …tgz`,
// `npx … …tgz …`), as written. test/package/install.test.ts runs each of them;
// test/newcomer-docs.test.ts checks in the default suite that each is of a form that test knows.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

export interface InstallForm {
  /** Where the docs show it, `FILE:LINE`. */
  where: string;
  /** The command line as written (whitespace collapsed, without a trailing `# comment`). */
  line: string;
  kind: "global" | "project" | "npx";
}

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? markdownFiles(p) : f.endsWith(".md") ? [p] : [];
  });
}

/** A command line naming the tarball: from `npx` or `npm install` to the end of its code span, quote or comment. */
const FORM = /\b(?:npx|npm install)\b[^`"#\n]*?patchwork-cli-[\d.]+\.tgz[^`"#\n]*/g;

/**
 * The text in pieces a command line does not cross: each line of a fenced block, and each
 * paragraph of prose (inline code may wrap onto the next line) with its line breaks as spaces.
 */
function pieces(text: string): { line: number; body: string }[] {
  const out: { line: number; body: string }[] = [];
  const lines = text.split("\n");
  let fenced = false;
  let paragraph: { line: number; body: string } | undefined;
  lines.forEach((l, i) => {
    if (/^ {0,3}```/.test(l)) fenced = !fenced;
    if (fenced || l.trim() === "" || /^ {0,3}```/.test(l)) {
      paragraph = undefined;
      out.push({ line: i + 1, body: l });
    } else if (paragraph) paragraph.body += ` ${l}`;
    else out.push((paragraph = { line: i + 1, body: l }));
  });
  return out;
}

/** Every install form of the repository's docs (README.md, docs/, packages/cli/README.md). */
export function installForms(root: string): InstallForm[] {
  const files = [join(root, "README.md"), join(root, "packages", "cli", "README.md"), ...markdownFiles(join(root, "docs"))];
  const forms: InstallForm[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const { line: at, body } of pieces(text)) {
      for (const m of body.matchAll(FORM)) {
        const line = m[0].replace(/\s+/g, " ").trim();
        const kind = line.startsWith("npx") ? "npx" : / -g /.test(` ${line} `) ? "global" : "project";
        forms.push({ where: `${relative(root, file)}:${at}`, line, kind });
      }
    }
  }
  return forms;
}

/** The words of a form, with its tarball path (`/tmp/…`, `./…`, `/abs/path/…`) replaced by `tarball`. */
export function formWords(form: InstallForm, tarball: string): string[] {
  return form.line.split(" ").map((w) => w.replace(/(^|=)[^=\s]*patchwork-cli-[\d.]+\.tgz$/, `$1${tarball}`));
}
