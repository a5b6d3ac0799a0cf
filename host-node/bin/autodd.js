#!/usr/bin/env node
// The `autodd` command: everything lives in src/cli.js, which library users share.
import v8 from 'node:v8';
import { main } from '../src/cli.js';

// The engine's wasm stays in V8's baseline compiler (Liftoff). Optimizing its hot
// functions took about half a second of CPU on background threads per reduction, more
// than the faster code gives back in reductions of a few thousand candidates, and on
// a small machine those threads compete with the Python runs.
v8.setFlagsFromString('--liftoff-only');

// An explicit exit: when the event loop drains instead, Node closes its signal watchers
// on the way out, and a second Ctrl-C in that window would end the process by SIGINT
// rather than with status 130.
process.exit(await main(process.argv.slice(2)));
