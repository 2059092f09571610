// Package officefile tells whether a file is the Office document its
// extension says, by its structure rather than its name: CheckDocx and
// CheckXlsx read the central directory of an Office Open XML file (a
// ZIP) for its main part, CheckDoc and CheckXls the root of a compound
// file (OLE2, [MS-CFB]) for the streams Word and Excel keep there. It
// knows formats, not uploads: which files a family accepts, how large,
// and what a refusal says are the caller's rules (package finance
// receives invoice files with it).
//
// A file is checked after it streamed by, without holding it whole: a
// Window keeps its first HeadWindow and last TailWindow bytes as they
// pass, and its Reader reads any offset from those windows or, within a
// budget, by reading the stored file again forward (the caller gives the
// function that opens it). A ZIP's directory lies in its tail, so the
// ZIP checks need no budget and refuse a directory past the tail window
// (over about 1,500 entries; Office writes a few dozen); a compound
// file's FAT and directory may lie anywhere, and are read in file order
// in at most ReadBackPasses passes. ErrTooScattered says a file's
// structure would take more.
//
// The checks take no context and open nothing themselves; their errors
// say why a file is not of the format, for logs and refusals.
package officefile
