import Foundation
import Glibc
import GripBlueZ
import GripProtocol
import GripStore
import GripStream
import GripSync
import GripSystem
import Logging
import ServiceLifecycle
import Synchronization

/// One connected client, owned by the socket thread.
final class Client {
    let descriptor: Int32
    /// Never reused while the daemon runs: the recorder's replies are addressed by it.
    let id: Int
    let pid: Int32
    let uid: UInt32
    /// Primary and supplementary groups at connect time (for the admin decision).
    let gids: [UInt32]
    var input = RequestLineBuffer(limit: DaemonSocket.requestLimit)
    /// Queued bytes, written by this thread and (live lines, while watching) the consumer.
    let output: ClientOutput
    var watching = false
    /// How SAMPLES reach this watcher (protocol 1.3): batched at ≤ 25 Hz, or each notification's as it is decoded.
    var pace = WatchPace.batched
    /// Set after an oversized request or a refusal: flush what is queued, then close; read nothing more.
    var closeAfterFlush = false
    /// Store queries sent to the reader and not answered yet (protocol 1.2; bounded per client).
    var queriesInFlight = 0
    /// PRO import data received so far in parts (`"more":true`), or nil.
    var importData: String?

    init(descriptor: Int32, id: Int, pid: Int32, uid: UInt32, gids: [UInt32]) {
        self.descriptor = descriptor
        output = ClientOutput(descriptor: descriptor)
        self.id = id
        self.pid = pid
        self.uid = uid
        self.gids = gids
    }

    var pendingBytes: Int { output.pendingBytes }

    /// The pace at which the consumer sends this client live lines, nil while it must get none.
    var livePace: WatchPace? { watching && !closeAfterFlush ? pace : nil }

    var reference: ClientReference { ClientReference(id: id, pid: pid, uid: uid) }
}
