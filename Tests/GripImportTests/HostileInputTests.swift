import CZlibInflate
import Foundation
import GripAnalysis
import GripImport
import Testing

/// Inputs written to break the import (`Fixtures/hostile/`, and zips built here): each is refused with its file and
/// line, in bounded time and memory, never a trap.
@Suite("hostile import input")
struct HostileInputTests {
    static func error(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    @Test("times whose span overflows Int64 µs are refused on their line")
    func timeSpanOverflow() throws {
        let bytes = try ImportFixtures.bytes("hostile/time-span-overflow.csv")
        #expect(Self.error { _ = try TindeqExport.parse(bytes, fileName: "t.csv") }
            == "t.csv:6: time 9000000000000 s is too far from the first sample's to be a recording: the file is damaged")
    }

    @Test("a repeaters set that cannot be placed after the one before is refused on its line")
    func repeatersTimeOverflow() throws {
        func file(_ name: String) throws -> NamedFile {
            NamedFile(name: "r/\(name)", bytes: try ImportFixtures.bytes("hostile/repeaters-time-overflow/\(name)"))
        }
        let message = Self.error {
            _ = try TindeqExport.parseRepeaters(
                bundle: "r", info: try file("info.csv"), dataSets: [try file("data_set_1.csv"), try file("data_set_2.csv")])
        }
        #expect(message == "r/data_set_2.csv:2: time 9000000000000 s is out of range once placed after the sets before it: the file is damaged")
    }

    @Test("a force outside the Progressor's limits is refused on its line")
    func impossibleForce() throws {
        let bytes = try ImportFixtures.bytes("hostile/weight-3.4e38-accepted.csv")
        #expect(Self.error { _ = try TindeqExport.parse(bytes, fileName: "w.csv") }
            == "w.csv:6: weight 3e38 kg is outside what the Tindeq Progressor can measure (-10 to 200 kg): the file is "
            + "damaged; correct or delete the line")
        let low = MalformedExportTests.header + "time,weight\r\n0.05,1.0\r\n0.06,-10.5\r\n"
        #expect(ImportFixtures.error(low).hasPrefix("bad.csv:6: weight -10.5 kg is outside what the Tindeq Progressor can measure"))
    }

    @Test("griptrack's export is held to the limits of the profile it names, or of any profile when it names none")
    func exportLimitsFollowTheProfile() {
        let entralpi = "date,2026-03-14 09:31:55\r\nprofile,Entralpi\r\n\r\ntime,weight\r\n0.000000,-5\r\n"
        #expect(ImportFixtures.error(entralpi) == "bad.csv:5: weight -5 kg is outside what the Entralpi can measure (0 to 300 kg): "
            + "the file is damaged; correct or delete the line")
        // The union of every profile's range: the CTS500's 500 kg and the Motherboard's −20 kg are its ends.
        let unknown = "date,2026-03-14 09:31:55\r\nprofile,someday\r\n\r\ntime,weight\r\n0.000000,320\r\n0.1,600\r\n"
        #expect(ImportFixtures.error(unknown).hasPrefix("bad.csv:6: weight 600 kg is outside what any device griptrack knows can measure (-20 to 500 kg)"))
    }

    @Test("a file read a byte at a time gives what it gives read whole")
    func byteByByte() throws {
        struct Drip: ImportByteSource {
            var bytes: [UInt8]
            var index = 0
            mutating func nextChunk() -> [UInt8]? {
                guard index < bytes.count else { return nil }
                defer { index += 1 }
                return [bytes[index]]
            }
        }
        for name in ["peak-force.csv", "endurance.csv", "rfd.csv", "critical-force.csv"] {
            let bytes = try ImportFixtures.bytes(name)
            let whole = try TindeqExport.parse(bytes, fileName: name)
            var samples: [ForceSample] = []
            var dripped = try TindeqExport.read(Drip(bytes: bytes), fileName: name) { samples.append($0) }
            dripped.samples = samples
            #expect(dripped == whole, "\(name)")
            #expect(whole.series.count == whole.samples.count && whole.series.last == whole.samples.last)
        }
    }

    @Test("a line longer than 64 KiB is refused, with or without its end, not buffered")
    func endlessLine() {
        let text = MalformedExportTests.header + "time,weight\r\n" + String(repeating: "1", count: 70_000)
        #expect(ImportFixtures.error(text) == "bad.csv:5: a line longer than 65536 bytes: this is not a CSV export")
        #expect(ImportFixtures.error(text + "\r\n") == "bad.csv:5: a line longer than 65536 bytes: this is not a CSV export")
    }

    @Test("a file a spreadsheet padded with empty columns reads as the original")
    func trailingEmptyColumns() throws {
        let bytes = try ImportFixtures.bytes("peak-force.csv")
        let text = String(decoding: bytes, as: UTF8.self)
        let padded = text.split(separator: "\r\n", omittingEmptySubsequences: false)
            .map { $0.isEmpty ? ",,,,,,,,,,,,,,,,,,,," : $0 + ",," }.joined(separator: "\r\n")
        var original = try TindeqExport.parse(bytes, fileName: "p.csv")
        var resaved = try TindeqExport.parse(Array(padded.utf8), fileName: "p.csv")
        original.fields = []
        resaved.fields = []
        #expect(resaved == original)
    }

    @Test("two files that are the same set of a bundle are refused, naming both")
    func duplicateSetNumbers() {
        let paths = ["info.csv", "data_set_1.csv", "data_set_01.csv", "a/data_set_1.csv", "data_set_2.csv"]
        #expect(Self.error { _ = try RepeatersBundle.arrange(paths, bundle: "b.zip") }
            == "b.zip: a/data_set_1.csv and data_set_01.csv are both set 1: keep one of them (rename or remove the other) and import again")
        #expect(throws: Never.self) {
            let layout = try RepeatersBundle.arrange(["x/info.csv", "x/data_set_10.csv", "x/data_set_2.csv", "__MACOSX/x/info.csv"], bundle: "b")
            #expect(layout.info == "x/info.csv" && layout.dataSets == ["x/data_set_2.csv", "x/data_set_10.csv"])
        }
    }

    @Test("the damaged 255-byte zip is refused at once")
    func damagedZip() throws {
        let bytes = try ImportFixtures.bytes("hostile/zip-255B-hang.zip")
        let message = Self.error {
            for entry in try ZipArchive.entries(bytes, file: "h.zip") { _ = try ZipArchive.contents(of: entry, in: bytes, file: "h.zip") }
        }
        #expect(message == "h.zip/info.csv: cannot be extracted: the zip is damaged (it inflates to more than the 184 bytes its directory says)")
    }

    @Test("the bundle zip of the fixtures reads to the same files as its folder")
    func fixtureZip() throws {
        let bytes = try ImportFixtures.bytes("repeaters.zip")
        let entries = try ZipArchive.entries(bytes, file: "r.zip")
        for entry in entries {
            let name = entry.path.split(separator: "/").last.map(String.init) ?? entry.path
            #expect(try ZipArchive.contents(of: entry, in: bytes, file: "r.zip") == ImportFixtures.bytes("repeaters/\(name)"))
        }
        #expect(entries.count == 3)
    }

    @Test("zip bombs are refused before they are inflated, or as soon as they inflate past what they declare")
    func zipBombs() throws {
        let zeros = [UInt8](repeating: 0x30, count: 40 << 20)
        let big = TestZip.make([("data_set_1.csv", zeros)])
        #expect(Self.error { _ = try ZipArchive.entries(big, file: "b.zip") }
            == "b.zip/data_set_1.csv: the entry would inflate to 41943040 bytes, more than the 32 MiB a data set can hold: it is not an export")
        let dense = TestZip.make([("data_set_1.csv", [UInt8](zeros.prefix(4 << 20)))])
        #expect(Self.error { _ = try ZipArchive.entries(dense, file: "b.zip") }.hasPrefix(
            "b.zip/data_set_1.csv: the entry would inflate 1"))
        // A directory that lies about the size: inflating stops one byte past it.
        let lying = TestZip.make([("data_set_1.csv", zeros)], declaredSize: 1000)
        let message = Self.error {
            for entry in try ZipArchive.entries(lying, file: "l.zip") { _ = try ZipArchive.contents(of: entry, in: lying, file: "l.zip") }
        }
        #expect(message == "l.zip/data_set_1.csv: cannot be extracted: the zip is damaged (it inflates to more than the 1000 bytes its directory says)")
        // Entries each within the limit, together over it (small limits: the rule, not the numbers).
        let many = TestZip.make((1...3).map { ("data_set_\($0).csv", [UInt8](zeros.prefix(900))) }, ratioSafe: true)
        let limits = ZipArchive.Limits(entryBytes: 1000, totalBytes: 2 << 20, ratio: 100, ratioFloorBytes: 1 << 20, entries: 10)
        #expect(throws: Never.self) { _ = try ZipArchive.entries(many, file: "m.zip", limits: limits) }
        var tight = limits
        tight.totalBytes = 2000
        #expect(Self.error { _ = try ZipArchive.entries(many, file: "m.zip", limits: tight) }.hasPrefix("m.zip: the zip would inflate to more than"))
    }
}

/// Builds zips in memory with zlib's raw deflate, for tests that must not commit large files.
enum TestZip {
    static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        _ = deflateInit2_(&stream, Z_BEST_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 9, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        defer { deflateEnd(&stream) }
        var input = bytes
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, UInt(bytes.count))) + 64)
        let produced: Int = input.withUnsafeMutableBufferPointer { source in
            output.withUnsafeMutableBufferPointer { target in
                stream.next_in = source.baseAddress
                stream.avail_in = UInt32(source.count)
                stream.next_out = target.baseAddress
                stream.avail_out = UInt32(target.count)
                _ = CZlibInflate.deflate(&stream, Z_FINISH)
                return target.count - Int(stream.avail_out)
            }
        }
        return Array(output.prefix(produced))
    }

    /// A zip of deflated entries. `declaredSize` replaces every entry's size in the directory; `ratioSafe` stores
    /// entries uncompressed-looking (compressed size declared as the size) so only the total is over a limit.
    static func make(_ files: [(String, [UInt8])], declaredSize: Int? = nil, ratioSafe: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        var directory: [UInt8] = []
        func u16(_ value: Int, _ into: inout [UInt8]) { into += [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
        func u32(_ value: Int, _ into: inout [UInt8]) { u16(value & 0xFFFF, &into); u16(value >> 16 & 0xFFFF, &into) }
        for (name, contents) in files {
            let data = ratioSafe ? [] : deflate(contents)
            let crc = contents.withUnsafeBufferPointer { Int(crc32(0, $0.baseAddress, UInt32($0.count))) }
            let size = declaredSize ?? contents.count
            let compressed = ratioSafe ? size : data.count
            let offset = out.count
            let nameBytes = Array(name.utf8)
            u32(0x0403_4B50, &out); u16(20, &out); u16(0, &out); u16(8, &out); u16(0, &out); u16(0, &out)
            u32(crc, &out); u32(compressed, &out); u32(size, &out); u16(nameBytes.count, &out); u16(0, &out)
            out += nameBytes
            out += data
            if ratioSafe { out += [UInt8](repeating: 0, count: compressed) }
            u32(0x0201_4B50, &directory); u16(20, &directory); u16(20, &directory); u16(0, &directory); u16(8, &directory)
            u16(0, &directory); u16(0, &directory); u32(crc, &directory); u32(compressed, &directory); u32(size, &directory)
            u16(nameBytes.count, &directory); u16(0, &directory); u16(0, &directory); u16(0, &directory); u16(0, &directory)
            u32(0, &directory); u32(offset, &directory)
            directory += nameBytes
        }
        let directoryOffset = out.count
        out += directory
        u32(0x0605_4B50, &out); u16(0, &out); u16(0, &out); u16(files.count, &out); u16(files.count, &out)
        u32(directory.count, &out); u32(directoryOffset, &out); u16(0, &out)
        return out
    }
}
