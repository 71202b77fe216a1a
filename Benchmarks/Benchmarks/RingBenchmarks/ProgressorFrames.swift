// Notification values shaped like the Tindeq Progressor's WEIGHT_MEAS frames (docs/devices.md):
// code 0x01, length byte L = 8·N, then N × (float32 LE kg, uint32 LE µs since start).

/// A WEIGHT_MEAS frame with `samples` samples of a plausible force curve, as the device would send it.
func progressorWeightFrame(samples: Int) -> [UInt8] {
    var frame: [UInt8] = [0x01, UInt8(8 * samples)]
    for index in 0..<samples {
        let kilograms = Float(10.5) + Float(index) * 0.11
        let micros = UInt32(1_000_000 + index * 12_500)
        withUnsafeBytes(of: kilograms.bitPattern.littleEndian) { frame += $0 }
        withUnsafeBytes(of: micros.littleEndian) { frame += $0 }
    }
    return frame
}

/// The value sizes every ring benchmark runs with: the smallest frame and a 20-sample frame (ATT MTU 185).
let benchmarkFrames: [(label: String, bytes: [UInt8])] = [
    ("10 B, 1 sample", progressorWeightFrame(samples: 1)),
    ("162 B, 20 samples", progressorWeightFrame(samples: 20)),
]

/// Ring capacity for the benchmarks (toolchain.md §4 measured 4096 too).
let benchmarkRingCapacity = 4096

/// Handle of the Progressor's data characteristic in the captures; any value works for the ring.
let benchmarkHandle: UInt16 = 0x000E
