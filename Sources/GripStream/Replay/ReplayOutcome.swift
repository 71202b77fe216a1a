import GripAnalysis
import GripWire

/// What a replay used and counted, besides the outputs its sink got (`CaptureReplay.run`).
public struct ReplayOutcome: Sendable {
    /// The device profile the frames were decoded with (calibrated when the replay was given a coefficient).
    package var profile: any DeviceProfile
    /// The force characteristic's handle, and how it was chosen.
    package var forceHandle: UInt16
    package var source: ForceHandleSource
    /// The processor's frame counters and device clock at the end of the stream.
    package var counters: FrameCounters
    package var clock: DeviceClock
    /// Reports the device numbered and the capture lacks (the Motherboard's sample number); nil for other devices.
    package var lostReports: Int?
    /// How reading the capture ended (nil only if the producer never said, which it always does before the end).
    package var capture: CaptureReadOutcome?
}
