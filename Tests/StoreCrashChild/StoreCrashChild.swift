// A child process for GripStoreTests: the tests start it, kill it, or race several of it against one database.
//
//   store-crash-child record <db> <sample interval µs>
//       Begins a recording and appends one sample per interval through a ChunkWriter, in real time, until killed
//       (or for at most 30 s, then finishes normally). Sample i has device time = CLOCK_MONOTONIC in µs when it was
//       made and force = StoreCrashChild.kilograms(i). Prints "began <id>", then "committed <total samples> <last
//       µs>" after every commit, flushing stdout each time.
//   store-crash-child race <db> <free limit>
//       Opens the store, prints "ready", waits for a line on stdin, then begins one recording with an admission
//       policy that admits while fewer than <free limit> recordings are stored. Prints "admitted <id>" (exit 0),
//       "refused <reason>" (exit 3) or "error <description>" (exit 1).

import Foundation
import GripStore

#if canImport(Glibc)
    import Glibc
#endif

@main
enum StoreCrashChild {
    static func main() {
        let arguments = CommandLine.arguments
        guard arguments.count == 4, let number = Int64(arguments[3]) else {
            fail("usage: store-crash-child record <db> <interval µs> | race <db> <free limit>", code: 2)
        }
        do {
            switch arguments[1] {
            case "record": try record(path: arguments[2], intervalMicros: number)
            case "race": try race(path: arguments[2], limit: Int(number))
            default: fail("unknown mode \(arguments[1])", code: 2)
            }
        } catch {
            fail("error \(error)", code: 1)
        }
    }

    /// The force of sample `index`: varied bit patterns, the same in the parent's check.
    static func kilograms(_ index: Int) -> Float {
        Float(index % 4001) * 0.0137 - 3.5
    }

    /// CLOCK_MONOTONIC in µs: system-wide, so the parent reads the same clock when it kills this process.
    static func monotonicMicros() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_nsec) / 1_000
    }

    static func record(path: String, intervalMicros: Int64) throws {
        let store = try RecordingStore(path: path)
        let id = try store.beginRecording(
            RecordingDraft(startedAt: Date(), device: "child", profile: "Test"), admission: { _ in .admit })
        say("began \(id)")
        let writer = ChunkWriter(store: store, recording: id)
        let deadline = monotonicMicros() + 30_000_000
        var index = 0
        while monotonicMicros() < deadline {
            let sample = StoredSample(micros: monotonicMicros(), kilograms: kilograms(index))
            index += 1
            for commit in try writer.append(CollectionOfOne(sample)) {
                say("committed \(commit.totalSamples) \(commit.lastMicros)")
            }
            usleep(UInt32(intervalMicros))
        }
        try writer.finish(summary: RecordingSummaryValues(endedAt: Date(), maxKilograms: nil, averageKilograms: nil), efforts: [])
        say("finished")
    }

    static func race(path: String, limit: Int) throws {
        let store = try RecordingStore(path: path)
        say("ready")
        _ = readLine()
        do {
            let id = try store.beginRecording(
                RecordingDraft(startedAt: Date(), device: "racer \(getpid())", profile: "Test"),
                admission: { count in
                    count.recordings < limit ? .admit : .refuse(reason: refusal(limit: limit, stored: count.recordings))
                })
            say("admitted \(id)")
            exit(0)
        } catch {
            // Not `catch .refused(...)`: that typed-throws pattern crashes the 6.3.1 optimizer (OSSA lifetime
            // completion) in the release build the TSan run needs.
            if case .refused(let reason, _) = error {
                say("refused \(reason)")
                exit(3)
            }
            throw error
        }
    }

    /// The refusal text the racing test expects verbatim.
    static func refusal(limit: Int, stored: Int) -> String {
        "Not saved: the free plan keeps \(limit) recordings, \(stored) are stored."
    }

    /// Writes one line straight to fd 1 (no stdio buffer that a SIGKILL would lose).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func fail(_ message: String, code: Int32) -> Never {
        say(message)
        exit(code)
    }
}
