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
    // Host-stamped decoders time samples by arrival: each frame arrives a step later, the step taken from the input
    // (so bursts, gaps and equal times are all reached).
    var hostMicros: Int64 = 1_000_000
    while !reader.isAtEnd {
        let step = reader.byte()
        if step >= 0xF0 {
            let commands = DeviceCommand.allCases
            decoder.noteCommandSent(commands[Int(reader.byte()) % commands.count])
            continue
        }
        let frame = reader.shortBytes()
        hostMicros += Int64(step) * 997
        var emitted = 0
        var previousMicros: UInt32?
        var backwards = false
        let outcome = frame.withUnsafeBytes { buffer in
            decoder.decode(buffer, hostMicros: hostMicros) { sample in
                emitted += 1
                if let previousMicros, sample.deviceMicros &- previousMicros > UInt32.max / 2 { backwards = true }
                previousMicros = sample.deviceMicros
            }
        }
        if backwards && profile.clock != .device {
            fuzzFailure("\(profile.identifier): host-stamped samples of one frame went back in time")
        }
        switch outcome {
        case .samples(let count):
            if count != emitted || count == 0 { fuzzFailure("\(profile.identifier): .samples(\(count)), \(emitted) emitted") }
        case .event, .rejected, .consumed:
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
