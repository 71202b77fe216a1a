import GripAnalysis
import GripStream
import Synchronization

/// What STATUS reports, shared between the consumer thread (writer) and the socket thread (reader).
///
/// The consumer only ever uses `withLockIfAvailable`, so a reader holding the lock can delay an update by one
/// batch but never blocks the hot path.
final class DaemonStatus: Sendable {
    struct Snapshot: Sendable, Equatable {
        /// "bluez", "replay" or "none".
        var source = "none"
        /// Replay: "connected", "disconnected", "ended" (replay finished) or "idle" (no device yet). BlueZ:
        /// "searching", "connecting", "connected", "streaming", "stopped" or "disconnected" (PROTOCOL-1.1).
        var deviceState = "idle" {
            didSet { if DaemonStatus.linkUp(deviceState) && !DaemonStatus.linkUp(oldValue) { linkUps += 1 } }
        }
        /// Times the link came up (a state with the link up after one without): reconnects are one less.
        var linkUps = 0
        /// The identifier of the device profile the pipeline decodes (`DeviceProfiles`).
        var profile = "progressor"
        /// BlueZ: the device's address and advertised name, once found; its battery once it answered.
        var deviceAddress: String?
        var deviceName: String?
        var batteryMillivolts: Int?
        /// BlueZ: why the last attempt to reach bluetoothd, the adapter or the device failed (while searching).
        var deviceProblem: String?
        /// The correction the pipeline applies to the sensor's readings; nil = none.
        var correction: ForceCorrection?
        var frames = FrameCounters()
        /// Entries the ring refused because it was full (a live source's drops).
        var ringDropped = 0
        /// Values longer than a ring slot.
        var ringOversized = 0
        /// What the recorder is doing (written by the recorder thread).
        var recorder = RecorderState()
        /// Access as the recorder last read it; nil before its first read (or without a store).
        var access: AccessSummary?
    }

    /// STATUS "recorder".
    struct RecorderState: Sendable, Equatable {
        /// Whether a recording is open (stored or live-only).
        var recording = false
        var explicit = false
        var saving = false
        /// The stored row, when saving.
        var id: Int64?
        /// The last refusal's text while the free limit still refuses.
        var refusal: String?
        /// Why the store cannot be written (a full disk, a read-only database) while that lasts.
        var problem: String?
        /// Samples kept in memory for the store while it fails.
        var heldSamples = 0
    }

    /// STATUS "access" and the PRO reply.
    struct AccessSummary: Sendable, Equatable {
        var pro: Bool
        /// The resolver's reason for Pro, the free plan's storage line otherwise.
        var reason: String
        var stored: Int
        var limit: Int
        /// The free plan's warning at one slot left or none (`FreeTierPolicy.warning`).
        var warning: String?
    }

    /// Whether a device state has the link up.
    static func linkUp(_ state: String) -> Bool { ["connected", "streaming", "stopped"].contains(state) }

    /// Counters for `/metrics` that no STATUS field carries, each written by one thread off the hot path.
    final class Counters: Sendable {
        /// Samples the recorder took from the consumer (each decoded sample once).
        let samples = Atomic<Int>(0)
        /// Sample chunks the recorder committed on its tick or at an effort's end.
        let commits = Atomic<Int>(0)
        /// Socket thread: clients connected and watching, bytes queued for them, and clients dropped for being
        /// too slow, failing, or over the clients' budget.
        let clients = Atomic<Int>(0)
        let watchers = Atomic<Int>(0)
        let backlogBytes = Atomic<Int>(0)
        let clientsDropped = Atomic<Int>(0)
    }

    let counters = Counters()

    private let state: Mutex<Snapshot>

    init(source: String) {
        var snapshot = Snapshot()
        snapshot.source = source
        state = Mutex(snapshot)
    }

    /// Consumer thread: publishes if the lock is free; otherwise the next batch will.
    func tryPublish(_ update: (inout Snapshot) -> Void) {
        _ = state.withLockIfAvailable { update(&$0) }
    }

    /// Any thread: applies an update, waiting for the lock (not for the consumer thread).
    func update(_ body: (inout Snapshot) -> Void) {
        state.withLock { body(&$0) }
    }

    var snapshot: Snapshot { state.withLock { $0 } }
}
