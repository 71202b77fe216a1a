import Foundation
import Glibc
import GripSystem
import Synchronization

/// Speaks `record --protocol`'s cues through `espeak-ng` (docs/protocols.md, "Spoken cues") without ever holding up
/// the readout: `say` only hands the phrase over; a thread of its own starts the speaker and waits for it. At most
/// one utterance is in flight; a phrase that arrives meanwhile waits, and a newer one replaces it (a count that
/// would come late is worth less than the next).
final class CueSpeaker: Sendable {
    /// The program the cues are spoken with, looked up on PATH.
    static let program = "espeak-ng"

    private struct State {
        var pending: String?
        var finished = false
    }

    let executable: String
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let drained = DispatchSemaphore(value: 0)

    /// Starts the speaking thread.
    /// - Parameter executable: The speaker's path (``find(path:)``).
    init(executable: String) {
        self.executable = executable
        NamedThread.start(name: "gt-speech") { [self] in speakUntilFinished() }
    }

    /// Queues `phrase` in place of any phrase still waiting; returns at once.
    func say(_ phrase: String) {
        state.withLock { $0.pending = phrase }
        wake.signal()
    }

    /// Once the readout has ended: starts a phrase still waiting (without waiting for it: it finishes on its own
    /// after this command has exited), then ends the thread; waits at most `seconds` for an utterance in flight.
    func finish(waitingUpTo seconds: Double = 1) {
        state.withLock { $0.finished = true }
        wake.signal()
        _ = drained.wait(timeout: .now() + seconds)
    }

    /// `espeak-ng` in a directory of `path` (PATH), as an absolute path; nil when there is none.
    static func find(path: String?) -> String? {
        for directory in (path ?? "").split(separator: ":") where directory.hasPrefix("/") {
            let candidate = directory + "/" + program
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
                access(candidate, X_OK) == 0
            {
                return candidate
            }
        }
        return nil
    }

    private func speakUntilFinished() {
        while true {
            wake.wait()
            let (phrase, finished) = state.withLock { state in
                defer { state.pending = nil }
                return (state.pending, state.finished)
            }
            if finished {
                if let phrase { speak(phrase, waiting: false) }
                drained.signal()
                return
            }
            if let phrase { speak(phrase, waiting: true) }
        }
    }

    /// This process's open descriptors (`/proc/self/fd`).
    private static func openDescriptors() -> [Int32] {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int32($0) }
    }

    /// Runs the speaker on `phrase`, and waits for it unless told not to. Its output goes to /dev/null (it must not draw over the
    /// readout), it inherits no descriptor beyond those three (the daemon's socket stays this command's), and it
    /// starts with no signal blocked.
    private func speak(_ phrase: String, waiting: Bool) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // Swift's Glibc module leaves out posix_spawn_file_actions_addclosefrom_np: close what is open now (glibc
        // skips a descriptor closed in the meantime).
        for descriptor in Self.openDescriptors() where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        let arguments = [executable, phrase]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, &attributes, argv, environ) == 0, waiting else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
