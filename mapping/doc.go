// Package mapping reads R8 and ProGuard mapping files (mapping.txt) and
// names the methods of a minified build's trace as the app's source named
// them (docs/formats.md §19).
//
// A method trace records real invocations, without line numbers, so a
// trace method is resolved by its class, its name and its dex descriptor,
// never by a line:
//
//  1. Class. A trace class C′ (dotted) that is the obfuscated name of a
//     class line ORIG -> C′: is ORIG. Otherwise, when C′ is OUTER$suffix
//     and OUTER is mapped, it is ORIG(OUTER)$suffix (class only); otherwise
//     it is not mapped and stays C′.
//  2. Candidates: the method lines under that class line whose obfuscated
//     name is the trace's. Consecutive method lines with the same
//     obfuscated line range and name form an inline chain (comment,
//     metadata and field lines between them do not break it); only its
//     last line, the outermost frame and the method the dex really has, is
//     a candidate. A line without a range is a candidate by itself.
//  3. A candidate's residual descriptor is the
//     com.android.tools.r8.residualsignature metadata of its original
//     method (R8 writes it once, after the method's first line, and it
//     holds for every line of the same original method under that class),
//     else the original signature as a descriptor with every class type
//     mapped through the class lines (original → obfuscated).
//  4. The candidates whose residual descriptor equals the trace's match.
//     One distinct original method: it. Several (merged classes): the
//     frame is named "A.foo | B.bar", sorted, and is ambiguous. None: the
//     candidates by name alone, counted as a signature mismatch. A trace
//     without descriptors takes the candidates by name.
//  5. The name is <owner>.<name>, where owner is the class a mapping line
//     names (R8 moved the method), else ORIG; the signature is the original
//     one as a descriptor; the source file is the owner's sourceFile
//     metadata, else the trace's own unless that is SourceFile, Unknown
//     Source, empty or r8-map-id-…, which name none.
//  6. A mapped class without a method line of that name keeps the method's
//     name. <init> and <clinit> are never renamed. Synthesized classes and
//     methods keep their names and are marked.
//
// The reader streams the map once and keeps only what the trace's methods
// need, so memory grows with the trace, not with the map; the owner of a
// moved method whose class line came first may take a second pass for
// those class lines only. Malformed lines are warnings, a file that is not
// a mapping one error.
package mapping
