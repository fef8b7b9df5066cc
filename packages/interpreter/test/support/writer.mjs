// A real writer process for the kill -9 test: writes `count` MB of one letter to the target,
// alternating letters, forever, through the interpreter's write(); says "ready" after the
// first complete write.
// The module itself, not the package index: a writer should start in milliseconds.
import { writeFileAtomic } from "../../dist/write-file.js";

const [target, mb] = process.argv.slice(2);
const size = Number(mb) * 1024 * 1024;
const texts = ["a".repeat(size), "b".repeat(size)];
for (let i = 0; ; i++) {
  writeFileAtomic(target, texts[i % 2]);
  if (i === 0) process.stdout.write("ready\n");
}
