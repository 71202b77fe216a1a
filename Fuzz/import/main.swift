// libFuzzer harness for the import parsers (docs/fuzzing.md, docs/import.md): any bytes → a CSV export (the app's
// layouts and griptrack's own) or a repeaters bundle's zip, which must yield an import or a GripImportError naming a
// line of the file, in bounded time and memory, never a trap. An input that starts like a zip goes through
// ZipArchive (directory checks, bounded inflate, CRC) and RepeatersBundle, then the bundle's CSVs; any other input is
// a CSV, parsed whole and fed in pseudo-random chunks, which must agree; what parses is analysed (segmenter, RFD).
// Seeds (Fuzz/Corpus/import): the import fixtures, including the hostile inputs that once broke the import.

import FuzzSupport
import GripAnalysis
@testable import GripImport

/// Hands the bytes over in chunks whose sizes come from the bytes themselves (deterministic per input).
struct Chunks: ImportByteSource {
    let bytes: [UInt8]
    var index = 0
    var state: UInt32

    mutating func nextChunk() -> [UInt8]? {
        guard index < bytes.count else { return nil }
        state = state &* 1_103_515_245 &+ 12_345
        let size = min(bytes.count - index, 1 + Int(state >> 16) % 97)
        defer { index += size }
        return Array(bytes[index..<(index + size)])
    }
}

func checkLine(_ error: GripImportError, lines: Int) {
    if let line = error.line, line < 1 || line > lines + 1 {
        fuzzFailure("error on line \(line) of a \(lines)-line file: \(error)")
    }
}

func csv(_ bytes: [UInt8]) {
    let lines = bytes.reduce(1) { $0 + ($1 == 0x0A || $1 == 0x0D ? 1 : 0) }
    let whole: Result<TindeqExport, GripImportError>
    do throws(GripImportError) {
        let export = try TindeqExport.parse(bytes, fileName: "f.csv")
        _ = export.analyse()
        whole = .success(export)
    } catch {
        checkLine(error, lines: lines)
        whole = .failure(error)
    }
    var samples: [ForceSample] = []
    let chunked: Result<TindeqExport, GripImportError>
    do {
        var export = try TindeqExport.read(Chunks(bytes: bytes, state: UInt32(truncatingIfNeeded: bytes.count)), fileName: "f.csv") {
            samples.append($0)
        }
        export.samples = samples
        chunked = .success(export)
    } catch let error as GripImportError {
        chunked = .failure(error)
    } catch {
        fuzzFailure("a source that cannot fail made the read fail: \(error)")
    }
    if whole != chunked { fuzzFailure("whole and chunked reads differ: \(whole) vs \(chunked)") }
}

func zip(_ bytes: [UInt8]) {
    do throws(GripImportError) {
        let entries = try ZipArchive.entries(bytes, file: "b.zip")
        var files: [String: [UInt8]] = [:]
        for entry in entries {
            let contents = try ZipArchive.contents(of: entry, in: bytes, file: "b.zip")
            if contents.count != entry.size { fuzzFailure("\(entry.path) inflated to \(contents.count), not \(entry.size) bytes") }
            files[entry.path] = contents
        }
        let layout = try RepeatersBundle.arrange(entries.map(\.path), bundle: "b.zip")
        let export = try TindeqExport.parseRepeaters(
            bundle: "b.zip", info: NamedFile(name: "b.zip/\(layout.info)", bytes: files[layout.info] ?? []),
            dataSets: layout.dataSets.map { NamedFile(name: "b.zip/\($0)", bytes: files[$0] ?? []) })
        _ = export.analyse()
    } catch {
        _ = error.description
    }
}

fuzzMain { data, size in
    let bytes = Array(fuzzInput(data, size))
    if bytes.starts(with: [0x50, 0x4B]) { zip(bytes) } else { csv(bytes) }
    return 0
}
