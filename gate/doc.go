// Package gate decides whether a change made a program slower: it parses
// the --fail-on rules of `atrace2 diff` and judges, per rule and subject, a
// series of runs before (old) and after (new) the change.
//
// (A fuller introduction follows.)
package gate
