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
/// - ``placeChecked(_:hostMicros:)`` (what the pipeline uses) first rejects a forward step that runs more than
///   ``unexplainedStepMicros`` (5 s) ahead of the host time that passed: a corrupted stamp would otherwise stretch a
///   recording by hours. When the next sample continues from the rejected one, the device clock really moved: that
///   sample opens a new epoch, bridged by host time, so a clock that jumped is never rejected for long.
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
    /// A forward step of device time more than this beyond the host time that passed is not time that passed (µs).
    /// A notification batches about 0.1 s of samples, and samples lost on the radio take their host time with
    /// them, so honest steps stay far below it.
    public static let unexplainedStepMicros: Int64 = 5_000_000

    /// Timeline position of device time 0 in the current epoch, including its wraps (stream µs).
    private var epochOrigin: Int64 = 0
    /// The last placed sample: device time, timeline position (stream µs), host time (host µs).
    private var last: Placed? = nil
    /// Set by ``startNewEpoch()``: the next sample opens a new epoch.
    private var newEpochPending = false
    /// The last sample ``placeChecked(_:hostMicros:)`` rejected, if the one before it was placed.
    private var rejectedJump: Placed? = nil

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

    /// Places one device timestamp as ``place(_:hostMicros:)`` does, unless it runs further ahead of the host clock
    /// than ``unexplainedStepMicros``: then it returns nil and places nothing. A sample that continues from the one
    /// rejected just before it opens a new epoch instead (the device clock jumped for real).
    ///
    /// - Parameters:
    ///   - deviceMicros: The sample's device time (µs since the device's last START, wrapping at 2³²).
    ///   - hostMicros: Host receive time of the sample (µs on any monotonic host clock).
    /// - Returns: The sample's time on the stream timeline, or nil for a jump the host clock does not explain.
    /// - Important: HOT PATH: no allocation.
    public mutating func placeChecked(_ deviceMicros: UInt32, hostMicros: Int64) -> Int64? {
        if let last, !newEpochPending, Self.isUnexplained(deviceMicros, hostMicros, after: last) {
            if let rejected = rejectedJump, !Self.isUnexplained(deviceMicros, hostMicros, after: rejected) {
                newEpochPending = true
            } else {
                rejectedJump = Placed(device: deviceMicros, timeline: 0, host: hostMicros)
                return nil
            }
        }
        rejectedJump = nil
        return place(deviceMicros, hostMicros: hostMicros)
    }

    /// A forward device step longer than the host step (never less than 0) plus ``unexplainedStepMicros``. Backward
    /// steps are wraps or restarts, which `place` handles.
    private static func isUnexplained(_ deviceMicros: UInt32, _ hostMicros: Int64, after earlier: Placed) -> Bool {
        guard deviceMicros >= earlier.device else { return false }
        let hostStep = Swift.max(0, hostMicros.saturatingSubtracting(earlier.host))
        return Int64(deviceMicros - earlier.device) > hostStep.saturatingAdding(unexplainedStepMicros)
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
