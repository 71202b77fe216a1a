// libFuzzer harness for the btsnoop reader and everything under it: records → HCI (H4, monitor, unencapsulated) →
// ACL reassembly → L2CAP → ATT → GATT discovery (docs/fuzzing.md). Inputs are whole capture files; seeds are the
// start of every capture in captures/ (Fuzz/Corpus/btsnoop).
//
// Besides "never traps", it checks the parser's documented promise: any split of the file gives the same events,
// counters and error. Each input is fed whole, then in pseudo-random chunks (1–64 bytes, single bytes, the rest)
// derived from the input itself, and the two runs must agree exactly.

import FuzzSupport
import GripWire

/// Everything a run of the parser observably produced.
struct ParseResult: Equatable {
    var events: [CaptureEvent] = []
    var error: CaptureError?
    var recordsRead = 0
    var bytesConsumed: Int64 = 0
    var malformedPackets = 0
    var droppedPartialPDUs = 0
    var orphanFragments = 0
    var datalinkCode: UInt32?
    var firstRecordMicros: Int64?
    var gatt = GATTDatabase()
}

func parse(_ file: UnsafeRawBufferPointer, in ranges: [Range<Int>]) -> ParseResult {
    var parser = BtsnoopParser()
    var result = ParseResult()
    do {
        for range in ranges {
            try parser.feed(UnsafeRawBufferPointer(rebasing: file[range])) { result.events.append($0) }
        }
        try parser.finish()
    } catch {
        result.error = error
        // A failed parser stays failed with the same error.
        do {
            try parser.finish()
            fuzzFailure("finish() succeeded after \(error)")
        } catch let again {
            if again != error { fuzzFailure("finish() threw \(again) after \(error)") }
        }
    }
    result.recordsRead = parser.recordsRead
    result.bytesConsumed = parser.bytesConsumed
    result.malformedPackets = parser.malformedPackets
    result.droppedPartialPDUs = parser.droppedPartialPDUs
    result.orphanFragments = parser.orphanFragments
    result.datalinkCode = parser.datalinkCode
    result.firstRecordMicros = parser.firstRecordMicros
    result.gatt = parser.gatt
    // The error text names the record and offset; building it must not trap either.
    _ = result.error?.description
    return result
}

fuzzMain { data, size in
    let file = fuzzInput(data, size)
    let whole = parse(file, in: [0..<file.count])
    let chunked = parse(file, in: chunkRanges(count: file.count, seed: fnv1a(file)))
    if whole != chunked {
        fuzzFailure("chunked parse differs: whole \(whole), chunked \(chunked)")
    }
    if whole.bytesConsumed > Int64(file.count) {
        fuzzFailure("bytesConsumed \(whole.bytesConsumed) beyond the \(file.count)-byte input")
    }
    // What generic code asks of the GATT map afterwards (replay's handle guess).
    for profile in DeviceProfiles.all {
        if let handle = whole.gatt.valueHandle(forCharacteristic: profile.dataCharacteristicUUID) {
            _ = whole.gatt.characteristicUUID(forValueHandle: handle)
            _ = whole.gatt.serviceUUID(containing: handle)
        }
    }
    return 0
}
