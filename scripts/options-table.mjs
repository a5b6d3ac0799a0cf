#!/usr/bin/env node
// Prints README's options table as host-node/src/options.js declares the options;
// with --write, puts it into README.md between its markers.
//
//   node scripts/options-table.mjs [--write]

import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { markdownTable } from "../host-node/src/options.js";

const readme = fileURLToPath(new URL("../README.md", import.meta.url));
const table = markdownTable();
if (process.argv.includes("--write")) {
  const text = fs.readFileSync(readme, "utf8");
  const block = /<!-- options:start -->\n[\s\S]*?<!-- options:end -->/;
  if (!block.test(text)) throw new Error("README.md has no options markers");
  fs.writeFileSync(
    readme,
    text.replace(
      block,
      `<!-- options:start -->\n${table}\n<!-- options:end -->`,
    ),
  );
} else {
  process.stdout.write(`${table}\n`);
}
