import Foundation
import GripAnalysis

/// What is known about a recording when it starts.
public struct RecordingDraft: Sendable, Equatable {
    /// A stable identity that survives export and sync (unlike the row id).
    public var uuid: UUID
    /// Host wall-clock time the recording started.
    public var startedAt: Date
    /// The device, as the user would recognise it (Bluetooth address or name).
    public var device: String
    /// The device profile that decoded the samples (`DeviceProfile.name`, e.g. "Tindeq Progressor").
    public var profile: String
    /// The hand used, if known.
    public var hand: Hand?
    /// A free-text label ("left, half crimp"), if any.
    public var label: String?
    /// Athlete, grip, edge depth and body weight, as far as known.
    public var setup: RecordingSetup
    /// The sensor's correction the samples will be corrected with, if any.
    public var correction: ForceCorrection?

    /// Describes a recording about to start.
    ///
    /// - Parameters:
    ///   - uuid: A stable identity; a new random one by default.
    ///   - startedAt: Host wall-clock start time. Stored with millisecond precision.
    ///   - device: The device address or name.
    ///   - profile: The device profile name.
    ///   - hand: The hand used, if known.
    ///   - label: A free-text label, if any.
    ///   - setup: Athlete, grip, edge depth and body weight, as far as known.
    ///   - correction: The sensor's correction, if any.
    public init(
        uuid: UUID = UUID(),
        startedAt: Date,
        device: String,
        profile: String,
        hand: Hand? = nil,
        label: String? = nil,
        setup: RecordingSetup = RecordingSetup(),
        correction: ForceCorrection? = nil
    ) {
        self.uuid = uuid
        self.startedAt = startedAt
        self.device = device
        self.profile = profile
        self.hand = hand
        self.label = label
        self.setup = setup
        self.correction = correction
    }
}
