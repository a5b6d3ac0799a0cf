// What a run's output says about its failure, read as it streams: whether MSG occurs
// in what the program itself wrote, or only in source lines that Python quotes (a
// traceback quotes each frame's line, a SyntaxError the offending line, a warning the
// line that warned), and the exception type of the last traceback.
//
// The runner's worker reads its candidates' output with a twin of this class
// (`OutputScan` in python/autodd_runner/scan.py); both are held to the cases in
// test/fixtures/output-scan.json, so the two backends judge a run alike.

import { Capture, Finder } from './capture.js';

const NL = 0x0a;
/** A line longer than this is judged by its start; the rest follows that judgement. */
const MAX_LINE = 65536;
/** The longest msgLine kept, in characters. */
const MSG_LINE_CHARS = 200;
/**
 * Lines are matched as latin1 text, one character per byte; every pattern is ASCII.
 * A frame of a traceback, or where a SyntaxError points; the lines after it that are
 * indented four more are source that Python quotes (and its ^~~~ markers). Inside an
 * exception group each line carries a margin such as `  | `. The path is as Python
 * prints it, unescaped: it may hold a `"`.
 */
const FRAME = /^( *\| )?  File "[^\n]*", line \d+/;
/** `x.py:3: UserWarning: …`: the next line, indented by two, quotes the source. */
const WARNING = /^[^\n]*:\d+: [A-Za-z_\x80-\xff][\w.\x80-\xff]*Warning: /;
/** A traceback at the top level (not one of a group's sub-exceptions). */
const HEADER = /^(  \+ Exception Group )?Traceback \(most recent call last\):/;
/**
 * An exception group's own line with no "Traceback" header above it (raised out of an
 * `except*` block): `  | ExceptionGroup:  (2 sub-exceptions)`.
 */
const GROUP = /^  \| ([A-Za-z_\x80-\xff][\w.\x80-\xff]*): .*\(\d+ sub-exceptions?\)$/;
/**
 * `ValueError: …`, `json.decoder.JSONDecodeError: …`, `KeyboardInterrupt`, and names
 * beyond ASCII (`Größenfehler`), whose UTF-8 bytes the line's text holds one a character.
 */
const EXCEPTION = /^([A-Za-z_\x80-\xff][\w.\x80-\xff]*)(?::|\s*$)/;
/**
 * A block of complete lines with none of these can hold no quote and no traceback (nor
 * a group's line, whose sub-exceptions need not have tracebacks).
 */
const MARKERS = ['File "', 'Traceback (most recent call last):', 'Warning: ', ' sub-exception'].map((m) =>
  Buffer.from(m),
);

export class OutputScan {
  /** @param {Buffer} needle the message to look for, as UTF-8 bytes */
  constructor(needle) {
    this.needle = needle;
    /** MSG anywhere in the stream, quoted source included; and the stream's tail. */
    this.anywhere = new Capture(needle);
    /** MSG in the stream with the quoted source lines left out. */
    this.own = new Finder(needle);
    /** @type {string | null} the first line of the program's own output holding MSG */
    this.msgLine = null;
    /** @type {string | null} the exception type of the last traceback */
    this.exception = null;
    /** The line begun and not yet ended. */
    this.partial = Buffer.alloc(0);
    /** @type {'own' | 'quoted' | null} what the rest of an overlong line is */
    this.rest = null;
    /** @type {string | null} the margin of the frame whose quoted lines may follow */
    this.quote = null;
    /** The next line, if indented by two, quotes the source of a warning. */
    this.warned = false;
    /** @type {string | null} the margin of the exception line the traceback ends with */
    this.expect = null;
  }

  get found() {
    return this.own.found;
  }

  /** @param {Buffer} chunk */
  feed(chunk) {
    this.anywhere.feed(chunk);

    let data = chunk;
    if (this.rest !== null) {
      const end = data.indexOf(NL);
      const piece = end < 0 ? data : data.subarray(0, end + 1);
      if (this.rest === 'own') this.ownText(piece);
      if (end < 0) return;
      this.rest = null;
      data = data.subarray(end + 1);
    }
    if (this.partial.length) data = Buffer.concat([this.partial, data]);
    const end = data.lastIndexOf(NL);
    const complete = data.subarray(0, end + 1);
    const partial = data.subarray(end + 1);
    if (complete.length) {
      if (this.idle() && !MARKERS.some((m) => complete.includes(m))) {
        this.ownText(complete);
      } else {
        let from = 0;
        while (from < complete.length) {
          const next = complete.indexOf(NL, from) + 1;
          this.line(complete.subarray(from, next));
          from = next;
        }
      }
    }
    if (partial.length > MAX_LINE) {
      this.rest = this.line(partial);
      this.partial = Buffer.alloc(0);
    } else {
      this.partial = Buffer.from(partial);
    }
  }

  /** The stream ended: a last line without a newline counts too. */
  end() {
    if (this.partial.length && this.rest === null) this.line(this.partial);
    this.partial = Buffer.alloc(0);
    this.rest = null;
  }

  /** The tail as text (invalid UTF-8 replaced). */
  text() {
    return this.anywhere.text();
  }

  idle() {
    return this.quote === null && !this.warned && this.expect === null;
  }

  /**
   * Judges one line (with its newline, if it has one).
   * @param {Buffer} bytes
   * @returns {'own' | 'quoted'}
   */
  line(bytes) {
    const judged = this.judge(bytes);
    // MSG must stand in the program's own output as one piece: never across a quote.
    if (judged === 'quoted') this.own.cut();
    return judged;
  }

  /**
   * @param {Buffer} bytes
   * @returns {'own' | 'quoted'}
   */
  judge(bytes) {
    const text = bytes.toString('latin1').replace(/\r?\n$/, '');
    if (this.warned) {
      this.warned = false;
      // A warning with no source to show (`sys:1: …`) is followed by whatever comes.
      if (text.startsWith('  ') && !FRAME.test(text) && !HEADER.test(text)) return 'quoted';
    }
    if (this.quote !== null) {
      if (text.startsWith(`${this.quote}    `)) return 'quoted';
      this.quote = null;
    }
    const frame = FRAME.exec(text);
    if (frame) {
      this.quote = frame[1] ?? '';
      // A SyntaxError of the program itself has a frame with nothing after the line
      // number and no "Traceback" line (a stack printed by traceback.print_stack() has
      // `, in NAME`, one of faulthandler ` in NAME`).
      const syntax = text.slice(frame[0].length).trim() === '';
      if (this.expect === null && this.quote === '' && syntax) this.expect = '';
    } else if (HEADER.test(text)) {
      this.expect = text.startsWith(' ') ? '  | ' : '';
    } else if (WARNING.test(text)) {
      this.warned = true;
    } else if (this.expect === null && GROUP.test(text)) {
      this.exception = fromBytes(/** @type {RegExpExecArray} */ (GROUP.exec(text))[1]);
    } else if (this.expect !== null && text.startsWith(this.expect)) {
      const type = EXCEPTION.exec(text.slice(this.expect.length));
      if (type) {
        this.exception = fromBytes(type[1]);
        this.expect = null;
      }
    }
    this.ownText(bytes);
    return 'own';
  }

  /** @param {Buffer} bytes text the program wrote itself */
  ownText(bytes) {
    if (!this.own.feed(bytes)) return;
    // The line holding MSG (or, if MSG began in an earlier chunk, this chunk's first).
    const at = Math.max(bytes.indexOf(this.needle), 0);
    // (lastIndexOf counts a negative offset from the end.)
    const from = at > 0 ? bytes.lastIndexOf(NL, at - 1) + 1 : 0;
    const to = bytes.indexOf(NL, at);
    const line = bytes
      .subarray(from, to < 0 ? bytes.length : to)
      .toString('utf8')
      .trim();
    this.msgLine = line.length > MSG_LINE_CHARS ? `${line.slice(0, MSG_LINE_CHARS)}…` : line;
  }
}

/**
 * A name read from a line's text, each of its UTF-8 bytes one character, as the name.
 * @param {string} text
 */
function fromBytes(text) {
  return Buffer.from(text, 'latin1').toString('utf8');
}
