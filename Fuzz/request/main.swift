// libFuzzer harness for the daemon's socket request parsing (docs/fuzzing.md, docs/protocol.md): the bytes one
// client sends, in pseudo-random `recv` sized pieces → request lines (RequestLineBuffer, the 4096-byte limit) →
// DaemonRequest.decode, which checks every field → the ERROR reply the daemon would send. Seeds (Fuzz/Corpus/request)
// are the request examples of docs/protocol.md.
//
// Checks besides "never traps": every reply is one line of valid JSON (client text is echoed into replies),
// splitting the bytes differently yields the same lines, and every accepted request, written again as a client
// writes it, reads back as itself.

import Foundation
import FuzzSupport
import GripProtocol

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
    var buffer = RequestLineBuffer(limit: DaemonSocket.requestLimit)
    var lines: [RequestLineBuffer.Line] = []
    for range in ranges {
        buffer.append(UnsafeRawBufferPointer(rebasing: input[range]))
        while let line = buffer.nextLine() {
            lines.append(line)
            // The daemon stops reading a client after an oversized request.
            if line == .oversized { return lines }
        }
    }
    if buffer.pending.count > DaemonSocket.requestLimit { fuzzFailure("\(buffer.pending.count) bytes pending") }
    return lines
}

fuzzMain { data, size in
    let input = fuzzInput(data, size)
    let received = lines(of: input, in: chunkRanges(count: input.count, seed: fnv1a(input)))
    if received != lines(of: input, in: [0..<input.count]) { fuzzFailure("the split changed the lines") }
    for case .line(let line) in received {
        switch DaemonRequest.decode(line, now: now) {
        case nil:
            break
        case .failure(let problem)?:
            checkReply(problem.line)
        case .success(let request)?:
            // An expiry is written to the second: a fractional one read back differs by design.
            if case .pro(.grant(_, let expires?)) = request, expires.timeIntervalSince1970.rounded() != expires.timeIntervalSince1970 {
                break
            }
            if DaemonRequest.decode(Array(request.line.utf8.dropLast()), now: now) != .success(request) {
                fuzzFailure("\(request) does not read back from \(request.line)")
            }
        }
    }
    return 0
}
