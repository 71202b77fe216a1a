// libFuzzer harness for the store's row decoding (docs/fuzzing.md): a database whose rows were written by someone
// else (an older or newer griptrack, a crash, a hand edit in `sqlite3`) must read back as values or a
// GripStoreError, never a trap. Each input is a recipe for the rows of an in-memory store: every column of a
// recording, its efforts and its sample chunks is NULL, an integer, a real, text, a blob or a plausible value, as
// the input says, inserted with plain SQL past the record types (the schema's own CHECKs still apply). Then every
// public read runs: list, one recording, efforts, samples (SampleChunkCodec), storage, recovery. The codec is also
// fed the input's bytes directly. Seeds: Fuzz/Corpus/store.

import Foundation
import FuzzSupport
import GRDB
@testable import GripStore

let store: RecordingStore = {
    do { return try RecordingStore.inMemory() } catch { fatalError("cannot open an in-memory store: \(error)") }
}()

extension ByteReader {
    /// A column value: mostly the plausible one, else any SQLite type.
    mutating func value(_ plausible: DatabaseValue) -> DatabaseValue {
        switch byte() % 8 {
        case 0: return .null
        case 1: return Int64(bitPattern: integer(width: 8)).databaseValue
        case 2: return Double(bitPattern: integer(width: 8)).databaseValue
        case 3: return shortString().databaseValue
        case 4: return Data(shortBytes()).databaseValue
        case 5: return Int64(Int8(bitPattern: byte())).databaseValue  // small integers: counts, indexes, booleans
        default: return plausible
        }
    }
}

func insert(_ db: Database, _ table: String, _ columns: [(String, DatabaseValue)]) {
    let names = columns.map(\.0).joined(separator: ", ")
    let marks = columns.map { _ in "?" }.joined(separator: ", ")
    // A row the schema refuses (NOT NULL, CHECK, foreign key) is simply not there.
    try? db.execute(
        sql: "INSERT INTO \(table) (\(names)) VALUES (\(marks))", arguments: StatementArguments(columns.map(\.1)))
}

func fillDatabase(_ reader: inout ByteReader) {
    try? store.writer.write { db in
        try db.execute(sql: "DELETE FROM sampleChunk; DELETE FROM effort; DELETE FROM recording")
        for recording in 1...2 {
            insert(db, "recording", [
                ("id", reader.value(Int64(recording).databaseValue)),
                ("uuid", reader.value(UUID(uuidString: "6F1D2E3C-0000-4000-8000-00000000000\(recording)")!
                    .uuidString.lowercased().databaseValue)),
                ("startedAt", reader.value("2026-01-0\(recording) 10:00:00.000".databaseValue)),
                ("endedAt", reader.value("2026-01-0\(recording) 10:05:00.000".databaseValue)),
                ("device", reader.value("F0:0D:CA:FE:12:34".databaseValue)),
                ("profile", reader.value("progressor".databaseValue)),
                ("hand", reader.value("left".databaseValue)),
                ("label", reader.value("warm-up".databaseValue)),
                ("state", reader.value((recording == 1 ? "complete" : "recording").databaseValue)),
                ("owner", reader.value("pid=1".databaseValue)),
                ("lastCommitAt", reader.value("2026-01-01 10:04:59.500".databaseValue)),
                ("sampleCount", reader.value(Int64(4).databaseValue)),
                ("maxKilograms", reader.value(31.2.databaseValue)),
                ("averageKilograms", reader.value(29.8.databaseValue)),
            ])
        }
        for index in 0..<Int(reader.byte() % 4) {
            insert(db, "effort", [
                ("recordingId", reader.value(Int64(1).databaseValue)),
                ("effortIndex", reader.value(Int64(index).databaseValue)),
                ("startMicros", reader.value(Int64(1_000_000).databaseValue)),
                ("endMicros", reader.value(Int64(8_000_000).databaseValue)),
                ("peakKilograms", reader.value(31.2.databaseValue)),
                ("meanKilograms", reader.value(29.8.databaseValue)),
                ("durationMicros", reader.value(Int64(7_000_000).databaseValue)),
                ("timeToPeakMicros", reader.value(Int64(300_000).databaseValue)),
                ("rfdKilogramsPerSecond", reader.value(102.9.databaseValue)),
                ("impulseKilogramSeconds", reader.value(145.6.databaseValue)),
                ("baselineKilograms", reader.value(0.3.databaseValue)),
                ("isOpen", reader.value(false.databaseValue)),
            ])
        }
        for sequence in 0..<Int(reader.byte() % 4) {
            insert(db, "sampleChunk", [
                ("recordingId", reader.value(Int64(1 + sequence % 2).databaseValue)),
                ("sequence", reader.value(Int64(sequence).databaseValue)),
                ("encoding", reader.value(Int64(SampleChunkCodec.encoding).databaseValue)),
                ("firstMicros", reader.value(Int64(1_000_000).databaseValue)),
                ("sampleCount", reader.value(Int64(2).databaseValue)),
                // Two samples 12.5 ms apart: 22.5 kg, then 22.25 kg.
                ("samples", reader.value(Data([0, 0, 0xB4, 0x41, 0x00, 0, 0, 0xB2, 0x41, 0xD4, 0x61]).databaseValue)),
            ])
        }
    }
}

fuzzMain { data, size in
    var reader = ByteReader(fuzzInput(data, size))
    // The codec on its own, with the input's own numbers and bytes.
    let firstMicros = reader.int64()
    let count = Int(Int64(bitPattern: reader.integer(width: Int(reader.byte() % 9))))
    _ = SampleChunkCodec.decode(firstMicros: firstMicros, count: count, bytes: Data(reader.shortBytes()))

    fillDatabase(&reader)
    _ = try? store.listRecordings(limit: nil)
    _ = try? store.listRecordings(limit: 1)
    _ = try? store.recordingCount()
    for id in [RecordingID(rawValue: 1), RecordingID(rawValue: 2)] {
        _ = try? store.recording(id)
        _ = try? store.efforts(of: id)
        _ = try? store.samples(of: id)
        _ = try? store.sampleStorage(of: id)
    }
    _ = try? store.recoverAbandonedRecordings()
    return 0
}
