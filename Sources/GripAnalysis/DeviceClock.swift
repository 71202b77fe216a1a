import GripWire

/// Unwraps the Progressor's 32-bit microsecond device clock onto one monotonic 64-bit stream timeline.
///
/// The device stamps each sample with `UInt32` microseconds since the last START command, so the counter
/// wraps every 2³² µs (≈ 71.6 min) and restarts at every START (including the one sent after a reconnect).
/// `DeviceClock` turns that into **stream microseconds**: an `Int64` timeline whose origin is the device time
/// of the first sample's epoch, which only moves forward and advances by real elapsed time.
///
/// Rules (`docs/segmentation.md`, device time):
/// - Within an epoch, a backwards step whose forward-wrapped delta (`new + 2³² − previous`) is below
///   ``wrapWindowMicros`` (10 s) is a wrap: the epoch advances by 2³² µs.
/// - Any other backwards step, or a sample after ``startNewEpoch()``, means the device clock restarted. The new
///   epoch is placed at the previous timeline position plus the host time elapsed since the last placed sample
///   (at least 1 µs), so the timeline stays monotonic and reflects the real gap.
/// - Forward steps (including equal times) are placed by device time alone; host time is only used to bridge
///   restarts.
///
/// Host times are only compared with each other (any monotonic host clock in µs works). The type is a value:
/// it reads no clock itself.
public struct DeviceClock: Sendable, Equatable {
    /// A backwards step whose forward-wrapped delta is below this is a wrap, not a restart (µs).
    public static let wrapWindowMicros: Int64 = 10_000_000
    /// One full turn of the device counter (2³² µs).
    public static let wrapPeriodMicros: Int64 = 1 << 32

    /// How many device-clock restarts (new epochs) have been placed; 0 until the first restart.
    public private(set) var epoch: Int = 0
    /// How many 2³² µs wraps have been unwrapped, over all epochs.
    public private(set) var wraps: Int = 0

    /// Timeline position of device time 0 in the current epoch, including its wraps (stream µs).
    private var epochOrigin: Int64 = 0
    /// The last placed sample: device time, timeline position (stream µs), host time (host µs).
    private var last: Placed? = nil
    /// Set by ``startNewEpoch()``: the next sample opens a new epoch.
    private var newEpochPending = false

    /// Creates a clock that has placed no sample yet.
    public init() {}

    /// Places one device timestamp on the stream timeline.
    ///
    /// - Parameters:
    ///   - deviceMicros: The sample's device time (µs since the device's last START, wrapping at 2³²).
    ///   - hostMicros: Host receive time of the sample (µs on any monotonic host clock); used only to bridge a
    ///     device restart.
    /// - Returns: The sample's time on the stream timeline (µs). Never less than the previous result.
    public mutating func place(_ deviceMicros: UInt32, hostMicros: Int64) -> Int64 {
        guard let last else {
            // Timeline origin: the device time of epoch 0.
            epochOrigin = 0
            newEpochPending = false
            let timeline = Int64(deviceMicros)
            self.last = Placed(device: deviceMicros, timeline: timeline, host: hostMicros)
            return timeline
        }
        var restarted = newEpochPending
        if !restarted, deviceMicros < last.device {
            let wrappedDelta = Int64(deviceMicros) + Self.wrapPeriodMicros - Int64(last.device)
            if wrappedDelta < Self.wrapWindowMicros {
                wraps += 1
                epochOrigin = epochOrigin.saturatingAdding(Self.wrapPeriodMicros)
            } else {
                restarted = true
            }
        }
        let timeline: Int64
        if restarted {
            epoch += 1
            newEpochPending = false
            let elapsed = Swift.max(1, hostMicros.saturatingSubtracting(last.host))
            timeline = last.timeline.saturatingAdding(elapsed)
            epochOrigin = timeline.saturatingSubtracting(Int64(deviceMicros))
        } else {
            timeline = Swift.max(last.timeline, epochOrigin.saturatingAdding(Int64(deviceMicros)))
        }
        self.last = Placed(device: deviceMicros, timeline: timeline, host: hostMicros)
        return timeline
    }

    /// Places one raw device sample on the stream timeline.
    ///
    /// - Parameters:
    ///   - sample: The sample as the device reported it.
    ///   - hostMicros: Host receive time (µs on any monotonic host clock).
    /// - Returns: The sample with its time on the stream timeline (µs).
    public mutating func place(_ sample: RawSample, hostMicros: Int64) -> ForceSample {
        ForceSample(micros: place(sample.deviceMicros, hostMicros: hostMicros), kilograms: sample.kilograms)
    }

    /// Declares that the device clock restarts: call it when a START command is sent or the device reconnects.
    ///
    /// The next placed sample opens a new epoch, bridged by host time. Before the first sample, and when called
    /// again before another sample arrives, it has no further effect.
    public mutating func startNewEpoch() {
        if last != nil { newEpochPending = true }
    }

    /// One placed sample: device time (µs), timeline position (stream µs), host time (host µs).
    private struct Placed: Sendable, Equatable {
        var device: UInt32
        var timeline: Int64
        var host: Int64
    }
}
