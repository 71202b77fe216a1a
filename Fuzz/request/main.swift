// libFuzzer harness for the daemon's socket request parsing (docs/fuzzing.md, docs/protocol.md): the bytes one
// client sends, in pseudo-random `recv` sized pieces → request lines (RequestLineBuffer, the 4096-byte limit) → JSON
// (ClientRequest) → the RECORD / STOP / PRO field checks (RecorderRequestParser) → the ERROR reply the daemon would
// send. Seeds (Fuzz/Corpus/request) are the request examples of docs/protocol.md.
//
// Checks besides "never traps": every reply is one line of valid JSON (client text is echoed into replies), and
// splitting the bytes differently yields the same lines.

import Foundation
import FuzzSupport
@testable import GripDaemon

let decoder = JSONDecoder()
let client = ClientReference(id: 1, pid: 42, uid: 1000)
/// A fixed "now" (2026-01-01): PRO grant compares expiry dates with it.
let now = Date(timeIntervalSince1970: 1_767_225_600)

/// Checks that a reply is what the protocol promises: one line, one JSON object.
func checkReply(_ reply: String) {
    guard reply.hasSuffix("\n"), !reply.dropLast().contains("\n") else { fuzzFailure("reply is not one line: \(reply)") }
    guard let object = try? JSONSerialization.jsonObject(with: Data(reply.utf8)) as? [String: Any],
          object["class"] as? String == "ERROR"
    else { fuzzFailure("reply is not a JSON ERROR object: \(reply)") }
}

func lines(of input: UnsafeRawBufferPointer, in ranges: [Range<Int>]) -> [RequestLineBuffer.Line] {
    var buffer = RequestLineBuffer(limit: SocketServer.requestLimit)
    var lines: [RequestLineBuffer.Line] = []
    for range in ranges {
        buffer.append(UnsafeRawBufferPointer(rebasing: input[range]))
        while let line = buffer.nextLine() {
            lines.append(line)
            // The daemon stops reading a client after an oversized request.
            if line == .oversized { return lines }
        }
    }
    if buffer.pending.count > SocketServer.requestLimit { fuzzFailure("\(buffer.pending.count) bytes pending") }
    return lines
}

fuzzMain { data, size in
    let input = fuzzInput(data, size)
    let received = lines(of: input, in: chunkRanges(count: input.count, seed: fnv1a(input)))
    if received != lines(of: input, in: [0..<input.count]) { fuzzFailure("the split changed the lines") }
    for case .line(let line) in received {
        switch ClientRequest.decode(line, with: decoder) {
        case nil:
            break
        case .failure(let problem)?:
            checkReply(ProtocolMessage.error(problem.message))
        case .success(let request)?:
            switch request.class {
            case "RECORD", "STOP", "PRO":
                let parsed = RecorderRequestParser.parse(
                    class: request.class, hand: request.hand, label: request.label, save: request.save,
                    action: request.action, note: request.note, expires: request.expires, client: client, now: now)
                if case .failure(let problem) = parsed { checkReply(ProtocolMessage.error(problem.message)) }
            case "WATCH", "STATUS", "TARE":
                break
            default:
                checkReply(ProtocolMessage.error("unknown request class \"\(request.class)\""))
            }
        }
    }
    return 0
}
