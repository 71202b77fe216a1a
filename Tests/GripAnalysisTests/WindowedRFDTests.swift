import GripAnalysis
import Testing

@Suite("RFD over fixed windows")
struct WindowedRFDTests {
    /// A rise of `slope` kg/s from `onset` seconds, sampled every `interval` seconds for 2 s.
    static func rise(slope: Double, onset: Double, interval: Double) -> [ForceSample] {
        stride(from: 0, through: 2, by: interval).map { t in
            ForceSample(micros: Int64((t * 1_000_000).rounded()), kilograms: Float(max(0, t - onset) * slope + 0.5))
        }
    }

    @Test("a linear rise gives its slope over 100 ms and 200 ms, with an onset between samples")
    func linearRise() throws {
        let trace = Self.rise(slope: 150, onset: 0.5, interval: 0.0125)
        for window in WindowedRFD.windowsMicros {
            let rfd = try #require(WindowedRFD.rfd(of: trace, onsetMicros: 500_000, windowMicros: window))
            #expect(abs(rfd - 150) < 0.01, "window \(window) µs: \(rfd)")
        }
        let offGrid = try #require(WindowedRFD.rfd(of: trace, onsetMicros: 506_000, windowMicros: 100_000))
        #expect(abs(offGrid - 150) < 0.01)
        #expect(WindowedRFD.rfd(of: trace, onsetMicros: 1_950_000, windowMicros: 100_000) == nil, "past the end")
    }

    @Test("80 Hz supports both windows; 10 Hz and 2 Hz are refused with the rate they would need")
    func sampleRateDecides() throws {
        let progressor = try #require(WindowedRFD.typicalIntervalMicros(of: Self.rise(slope: 1, onset: 0, interval: 0.0125)))
        #expect(WindowedRFD.support(intervalMicros: progressor, windowMicros: 100_000) == .supported)
        #expect(WindowedRFD.support(intervalMicros: 100_000, windowMicros: 200_000)
            == .tooSlow(rateHz: 10, neededHz: 20))
        #expect(WindowedRFD.support(intervalMicros: 500_000, windowMicros: 100_000)
            == .tooSlow(rateHz: 2, neededHz: 40))
    }
}
