// Package docs has no code: its tests keep the documents under docs/ honest.
// They check that every citation of the specifications in the repository
// (docs/formats.md §N, docs/outputs.md §N, in any .go, .txtar or .md file)
// names a section that has a heading in that document, that no citation
// still points at the old documents outside the repository, and that every
// relative link in README.md and docs/ leads to a file that exists.
package docs
