'use strict';
// The grader's preload for a wrapped test command (make, a script, an npm script), given to every node process
// through NODE_OPTIONS=--require. In a jest, vitest or mocha main process it appends the options that make the
// runner write its JSON report into the grader's folder (this file's folder), one file per run, and keeps a copy
// of what the runner prints and its exit code beside it, so each report is checked against its own run. For
// `node --test`, NODE_OPTIONS also names a TAP destination here; its main process gives that file a name of its
// own when it exits. Any other node process is left alone.
const fs = require('fs');
const path = require('path');
const OUT = __dirname;

function realMain() {
  try { return process.argv[1] ? fs.realpathSync(process.argv[1]) : ''; } catch (e) { return process.argv[1] || ''; }
}

function runner(main) {
  if (process.execArgv.includes('--test')) return 'node-test';
  if (/[\\/]jest(-cli)?[\\/]bin[\\/]jest(\.js)?$/.test(main)) return 'jest';
  if (/[\\/]vitest[\\/]vitest\.mjs$/.test(main)) return 'vitest';
  if (/[\\/]mocha[\\/]bin[\\/]_?mocha(\.js)?$/.test(main)) return 'mocha';
  return null;
}

function keepOutput(base) {
  const file = base + '.out';
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = function (chunk, encoding, cb) {
      try { fs.appendFileSync(file, typeof chunk === 'string' ? chunk : Buffer.from(chunk)); } catch (e) { /* the run goes on */ }
      return write(chunk, encoding, cb);
    };
  }
}

const name = runner(realMain());
if (name !== null) {
  const base = path.join(OUT, name + '-' + process.pid + '-' + Date.now());
  const args = process.argv;
  if (name === 'jest') args.push('--json', '--outputFile=' + base + '.json');
  else if (name === 'vitest') args.push('--reporter=default', '--reporter=json', '--outputFile.json=' + base + '.json');
  else if (name === 'mocha') args.push('--reporter', 'json', '--reporter-option', 'output=' + base + '.json');
  if (name !== 'mocha' && name !== 'node-test') keepOutput(base);
  const onExit = (code) => {
    try {
      if (name === 'node-test') {
        const tap = path.join(OUT, 'node-test.tap');
        if (fs.existsSync(tap)) fs.renameSync(tap, base + '.tap');
      }
      fs.writeFileSync(base + '.exit', String(process.exitCode === undefined ? code : process.exitCode));
    } catch (e) { /* the report stays unpaired: the grader says so */ }
  };
  // the runner may set its exit code in an exit listener of its own (mocha does): this one stays the last
  const on = process.on;
  process.on = process.addListener = function (event, listener) {
    const r = on.call(this, event, listener);
    if (event === 'exit' && listener !== onExit) {
      process.removeListener('exit', onExit);
      on.call(process, 'exit', onExit);
    }
    return r;
  };
  on.call(process, 'exit', onExit);
}
