// libFuzzer harness for every device profile's frame decoder and control-point parsing (docs/fuzzing.md). It walks
// `DeviceProfiles.all`, so a new device is fuzzed as soon as it is in the table; seeds (Fuzz/Corpus/profiles) are
// notification streams cut from the captures.
//
// An input is a stream of steps: `0x00–0xEF len bytes` notifies a frame of `len` bytes, `0xF0–0xFF n` tells the
// decoder that command `n` was written (battery, version, … change how a 0x00 response reads), so both the
// stateless checks and the decoder's state (duplicate spans, command correlation) are exercised. The decoder must
// never trap (its contract: HOT PATH, no trap on any input) and must report exactly the samples it emitted.

import FuzzSupport
import GripWire

func fuzz<Profile: DeviceProfile>(_ profile: Profile, _ input: UnsafeRawBufferPointer) {
    var decoder = profile.makeDecoder()
    var reader = ByteReader(input)
    while !reader.isAtEnd {
        let step = reader.byte()
        if step >= 0xF0 {
            let commands = DeviceCommand.allCases
            decoder.noteCommandSent(commands[Int(reader.byte()) % commands.count])
            continue
        }
        let frame = reader.shortBytes()
        var emitted = 0
        let outcome = frame.withUnsafeBytes { buffer in
            decoder.decode(buffer) { _ in emitted += 1 }
        }
        switch outcome {
        case .samples(let count):
            if count != emitted || count == 0 { fuzzFailure("\(profile.identifier): .samples(\(count)), \(emitted) emitted") }
        case .event, .rejected:
            if emitted != 0 { fuzzFailure("\(profile.identifier): \(outcome) emitted \(emitted) samples") }
        }
        _ = profile.looksLikeDataFrame(frame)
        // A control-point write read back from a capture.
        if let command = profile.command(fromControlWrite: frame), let bytes = profile.encode(command),
           profile.command(fromControlWrite: bytes) != command {
            fuzzFailure("\(profile.identifier): \(frame) reads as \(command), whose encoding \(bytes) does not")
        }
    }
}

fuzzMain { data, size in
    let input = fuzzInput(data, size)
    for profile in DeviceProfiles.all {
        fuzz(profile, input)
    }
    return 0
}
