/// Times the samples of a device that sends no time of its own (the Force Board, the Entralpi, SIG scales).
///
/// Notifications reach the host in bursts, one or a few per connection event, so arrival times jitter by tens of
/// milliseconds while the device samples at a steady rate. Stamping each sample with its arrival time would put
/// that jitter into every rate of force development. Instead the clock lays samples on the device's nominal
/// rate and follows the arrival times slowly (an eighth of the difference per frame), so the stamps stay evenly
/// spaced yet never drift from host time. A frame arriving further than ``toleranceMicros`` from where that grid
/// puts it means notifications were lost or the device paused: the grid restarts at the frame's arrival time, so
/// a gap stays a gap (`docs/devices.md`, "Host-stamped devices").
///
/// The published rate is only a start: the period follows the arrivals (a sixteenth of the difference per frame,
/// within a quarter and four times the nominal), so a device that really samples at 83 Hz, or a scale whose rate
/// nobody published, still gets even stamps that keep pace with host time.
///
/// The result is device time as the pipeline expects it: µs since the clock's origin, wrapping at 2³².
public struct HostStampedClock: Sendable {
    /// The nominal time between two samples (µs).
    public let nominalPeriodMicros: Int64
    /// The time between two samples as the arrivals show it (µs), starting at the nominal period.
    public private(set) var periodMicros: Int64
    /// How far a frame may arrive from the nominal grid before the grid restarts at its arrival (µs).
    public let toleranceMicros: Int64
    /// Host time of device time 0; nil until the first frame after a restart.
    private var origin: Int64?
    /// Host time given to the last sample, and when the last frame arrived.
    private var lastStamp: Int64 = 0
    private var lastArrival: Int64 = 0

    /// - Parameter nominalHz: the device's sampling rate as published (must be positive).
    public init(nominalHz: Double) {
        nominalPeriodMicros = max(1, Int64((1_000_000 / max(nominalHz, 0.001)).rounded()))
        periodMicros = nominalPeriodMicros
        // Wide enough for a BLE connection event's batching (up to ~100 ms), narrow enough to see a lost second.
        toleranceMicros = max(250_000, 4 * nominalPeriodMicros)
    }

    /// Forgets the grid: the next frame starts a new one (after START or a new link).
    public mutating func restart() {
        origin = nil
        periodMicros = nominalPeriodMicros
    }

    /// The device times of a frame's `count` samples (count ≥ 1) that arrived together at `hostMicros`.
    ///
    /// - Returns: the first sample's device time and the step to each next one.
    /// - Important: HOT PATH: no allocation.
    public mutating func place(count: Int, arrivedAt hostMicros: Int64) -> (firstMicros: UInt32, stepMicros: UInt32) {
        let count = Int64(max(count, 1))
        defer { lastArrival = hostMicros }
        guard let origin else {
            let first = hostMicros - (count - 1) * periodMicros
            origin = first
            lastStamp = hostMicros
            return (0, UInt32(truncatingIfNeeded: periodMicros))
        }
        let expected = lastStamp + count * periodMicros
        let difference = hostMicros - expected
        let onGrid = abs(difference) <= toleranceMicros
        if onGrid {
            let observed = (hostMicros - lastArrival) / count
            periodMicros = min(max(periodMicros + (observed - periodMicros) / 16, nominalPeriodMicros / 4),
                               nominalPeriodMicros * 4)
        }
        var last = onGrid ? expected + difference / 8 : hostMicros
        // Time only moves forward: at least 1 µs per sample after the previous frame's last.
        last = max(last, lastStamp + count)
        var step = periodMicros
        var first = last - (count - 1) * step
        if first <= lastStamp {
            step = (last - lastStamp) / count
            first = lastStamp + step
        }
        lastStamp = first + (count - 1) * step
        return (UInt32(truncatingIfNeeded: first - origin), UInt32(truncatingIfNeeded: step))
    }
}
