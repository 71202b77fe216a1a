import GripProtocol
import Logging

/// The recorder's protocol lines: the state machine's replies to one client and its RECORDER reports to watchers,
/// written as docs/protocol.md says and posted to the socket thread's reply mailbox.
struct RecorderLines {
    let replies: Mailbox<DaemonReply>
    let logger: Logger
    /// The free plan's limit, which a refused RECORD names.
    let storedRecordingLimit: Int

    func reply(_ client: ClientReference, _ line: String) {
        replies.post(.init(target: .client(client.id), line: line))
    }

    func toWatchers(_ line: String) {
        replies.post(.init(target: .watchers, line: line))
    }

    /// The store refuses writes: one log line and one RECORDER event for the whole trouble (STATUS is published
    /// first, so a client that reads the event and then asks sees the same state).
    func storageFailed(_ trouble: StorageTrouble, heldSamples: Int) {
        logger.error(
            "The store refuses writes; holding the recording's samples in memory and retrying",
            metadata: ["error": "\(trouble.problem)", "recorder.heldSamples": "\(heldSamples)"])
        toWatchers(ProtocolMessage.recorderStorageFailed(
            problem: trouble.problem, heldSamples: heldSamples, retrySeconds: Int(trouble.backoff.components.seconds)))
    }

    /// The store accepts writes again: one log line and one RECORDER event, after STATUS as above.
    func storageRecovered(committedSamples: Int, droppedSamples: Int) {
        logger.notice(
            "The store accepts writes again; held samples committed",
            metadata: ["recorder.committedSamples": "\(committedSamples)", "recorder.droppedSamples": "\(droppedSamples)"])
        toWatchers(ProtocolMessage.recorderStorageRecovered(committedSamples: committedSamples, droppedSamples: droppedSamples))
    }

    /// `samples`: the count STOP reports for a finished recording; `access`: why a saving RECORD may store, and the
    /// free plan's warning a saved recording's STOP carries (its row was counted when it started).
    func reply(
        _ client: ClientReference, _ reply: RecorderStateMachine.Reply,
        samples: (RecorderStateMachine.Finished) -> Int, access: DaemonStatus.AccessSummary?
    ) {
        let line: String
        switch reply {
        case .started(let saving, let id):
            line = ProtocolMessage.recordStarted(saving: saving, id: id?.rawValue, access: access?.reason)
        case .refused(let reason, let stored):
            line = ProtocolMessage.recordRefused(reason: reason, stored: stored, limit: storedRecordingLimit)
        case .stopped(let outcome):
            line = ProtocolMessage.stopped(Self.finished(outcome, samples: samples(outcome)), warning: access?.warning)
        case .error(let message):
            line = RequestProblem(message: message).line
        }
        self.reply(client, line)
    }

    /// Posts a RECORDER report to watchers and logs it.
    func report(_ report: RecorderStateMachine.Report, samples: (RecorderStateMachine.Finished) -> Int) {
        switch report {
        case .started(let id, let explicit, let hand, let label):
            toWatchers(ProtocolMessage.recorderStarted(id: id?.rawValue, explicit: explicit, hand: hand?.rawValue, label: label))
            logger.info(
                "Recording started",
                metadata: ["recording.id": "\(id?.rawValue ?? -1)", "recording.explicit": "\(explicit)"])
        case .refused(let explicit, let reason):
            // StoreWrites logs the refusal (once).
            toWatchers(ProtocolMessage.recorderRefused(explicit: explicit, reason: reason))
        case .finished(let outcome):
            toWatchers(ProtocolMessage.recorderFinished(Self.finished(outcome, samples: samples(outcome))))
            if outcome.id == nil {
                logger.info("Recording discarded (not saved)", metadata: ["recording.efforts": "\(outcome.efforts)"])
            }
        }
    }

    private static func finished(
        _ finished: RecorderStateMachine.Finished, samples: Int
    ) -> ProtocolMessage.FinishedRecording {
        ProtocolMessage.FinishedRecording(
            id: finished.id?.rawValue, explicit: finished.explicit, samples: samples, efforts: finished.efforts,
            maxKilograms: finished.maxKilograms, averageKilograms: finished.averageKilograms,
            hand: finished.hand?.rawValue, label: finished.label,
            reason: finished.nothingRecorded ? ProtocolMessage.FinishedRecording.nothingRecorded : nil)
    }
}
