// The journal of --record and --resume (docs/decisions/0013-cassette-journal.md), loaded only
// then: not with the full interpreter (which loads the parser). This module names the
// parser-free core too, which the run path has loaded already: so the bundler keeps the core's
// modules in the chunks a plain run loads, instead of splitting out what the journal shares.
export { JournaledRecording } from "@patchwork/interpreter/journal";
export { readCassetteText } from "@patchwork/interpreter/core";
