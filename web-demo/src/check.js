// Runs the mocked predicate on the program in the editor, off the page's thread: a
// predicate that never returns (`while (true) {}`) must not freeze the tab. The page
// gives it a time limit and replaces this worker when it is exceeded.
//
// Messages in: { id, body, source } · out: { id, verdict } | { id, error }

import { compilePredicate } from './oracle.js';

self.onmessage = (event) => {
  const { id, body, source } = event.data;
  try {
    self.postMessage({ id, verdict: compilePredicate(body)(source) });
  } catch (e) {
    self.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
  }
};
