import Foundation
import GripAnalysis
import GripProtocol
import Testing

@Suite("Requests")
struct RequestTests {
    static let now = Date(timeIntervalSince1970: 1_790_000_000)  // 2026-09-21

    static func decode(_ line: String) -> Result<DaemonRequest, RequestProblem>? {
        DaemonRequest.decode(Array(line.utf8), now: now)
    }

    /// A request line with the given fields, "class" first.
    static func line(_ name: String, _ fields: [String: Any] = [:]) -> String {
        var object = fields
        object["class"] = name
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    static func problem(_ name: String, _ fields: [String: Any] = [:]) -> String? {
        if case .failure(let problem)? = decode(line(name, fields)) { problem.message } else { nil }
    }

    @Test("a blank line is ignored, a non-object is malformed, unknown fields are ignored")
    func blankMalformedAndUnknownFields() {
        #expect(Self.decode(" \t ") == nil)
        #expect(Self.decode("[1]") == .failure(.malformed))
        #expect(Self.decode("{\"class\":7}") == .failure(.malformed))
        #expect(Self.decode("{\"class\":\"RECORD\",\"hand\":\"left\",\"x\":[1]}")
            == .success(.record(hand: .left, label: nil, save: true)))
        #expect(Self.problem("FLY")?.hasPrefix("unknown request class \"FLY\"; expected WATCH, STATUS") == true)
    }

    // Every request a client can write reads back as itself: the CLI, the web app and MQTT write lines with
    // `DaemonRequest.line`, so a field the daemon reads under another name would show here.
    @Test("every request reads back as the request written", arguments: [
        DaemonRequest.watch(enable: true, pace: nil), .watch(enable: false, pace: .immediate), .watch(enable: true, pace: .batched),
        .status, .record(hand: .right, label: "7:3 \"max\" ✓", save: false), .record(hand: nil, label: nil, save: true),
        .stop, .tare, .pro(.status), .pro(.revoke), .pro(.grant(note: "PT partner", expires: nil)),
        .pro(.grant(note: nil, expires: Date(timeIntervalSince1970: 1_803_902_400))),
        .pro(.importSigned(data: "eyJh.eyJi.c2ln", more: true, kind: .auto)),
        .pro(.importSigned(data: "x", more: false, kind: .renewalInfo)),
        .list(limit: nil), .list(limit: 3), .show(id: 12), .read(id: 12, from: 4), .stats, .history, .plan, .delete(id: 9),
        .label(id: 4, RecordingDescription(hand: .both, label: "", athlete: "Ada", grip: "half crimp", edgeMillimetres: 20,
                                           bodyWeightKilograms: 61.5)),
        .label(id: 5, RecordingDescription(grip: "open")),
        .label(id: 6, RecordingDescription(protocolNotation: "repeaters 6x 7:3 @80%", protocolMaxKilograms: 27.5)),
        .label(id: 7, RecordingDescription(protocolNotation: "")),
        .web(.pair(role: .record, name: nil)), .web(.pair(role: .watch, name: "kitchen tablet")),
        .web(.token(role: .admin, name: "grafana")), .web(.tokens), .web(.revoke(name: "grafana")),
    ])
    func roundTrip(request: DaemonRequest) {
        let line = request.line
        #expect(line.hasSuffix("\n") && line.dropLast().contains("\n") == false)
        #expect(Self.decode(String(line.dropLast())) == .success(request))
    }

    @Test("RECORD takes hand left/right/both, a label up to 200 bytes, and saves unless save is false")
    func recordFields() {
        #expect(Self.decode(Self.line("RECORD", ["hand": "left", "label": "warm-up"]))
            == .success(.record(hand: .left, label: "warm-up", save: true)))
        #expect(Self.decode(Self.line("RECORD", ["save": false])) == .success(.record(hand: nil, label: nil, save: false)))
        #expect(Self.problem("RECORD", ["label": String(repeating: "é", count: 100)]) == nil)  // 200 bytes
        #expect(Self.problem("RECORD", ["label": String(repeating: "é", count: 101)])?.contains("202 bytes") == true)
        #expect(Self.decode(Self.line("RECORD", ["hand": "both"])) == .success(.record(hand: .both, label: nil, save: true)))
        #expect(Self.problem("RECORD", ["hand": "middle"]) == "hand must be \"left\", \"right\" or \"both\", got \"middle\"")
    }

    // A NUL reached the store, which kept only what came before it ("a\0b" was stored as "a").
    @Test("RECORD refuses a label with a control character instead of storing part of it", arguments: [
        ("a\u{0}b", "label has a control character (U+0000) at character 2; a label is one line of text"),
        ("left\nright", "label has a control character (U+000A) at character 5; a label is one line of text"),
        ("\u{1B}[2J", "label has a control character (U+001B) at character 1; a label is one line of text"),
    ])
    func recordRefusesControlCharacters(label: String, problem: String) {
        #expect(Self.problem("RECORD", ["label": label]) == problem)
    }

    @Test("PRO grant refuses a day the calendar does not have instead of rolling it into the next month",
          arguments: ["2027-02-30", "2027-02-29T12:00:00Z", "2027-13-01", "2027-04-31", "2027-00-10",
                      // Found by the request fuzzer: ten characters, read as year 14012, written back unreadable.
                      "14012-3-01", "2027-3-011"])
    func proRefusesImpossibleDays(expires: String) {
        #expect(Self.problem("PRO", ["action": "grant", "expires": expires])?.hasPrefix("expires must be a date") == true)
        #expect(ExpiryText.date(from: expires) == nil)
    }

    @Test("a leap day and an ISO 8601 time with an offset are still read")
    func leapDayAndOffsetAreRead() {
        #expect(ExpiryText.date(from: "2028-02-29") == Date(timeIntervalSince1970: 1_835_395_200))
        #expect(ExpiryText.date(from: "2027-03-01T01:00:00+01:00") == Date(timeIntervalSince1970: 1_803_859_200))
    }

    @Test("PRO grant reads a day or an ISO 8601 time and refuses past or unreadable expiries and unknown actions")
    func proFields() {
        #expect(Self.decode(Self.line("PRO", ["action": "grant", "note": "PT partner", "expires": "2027-03-01"]))
            == .success(.pro(.grant(note: "PT partner", expires: Date(timeIntervalSince1970: 1_803_859_200)))))
        #expect(Self.decode(Self.line("PRO", ["action": "grant", "expires": "2027-03-01T12:00:00Z"]))
            == .success(.pro(.grant(note: nil, expires: Date(timeIntervalSince1970: 1_803_902_400)))))
        #expect(Self.decode(Self.line("PRO")) == .success(.pro(.status)))
        #expect(Self.decode(Self.line("PRO", ["action": "revoke"])) == .success(.pro(.revoke)))
        #expect(Self.problem("PRO", ["action": "grant", "expires": "2020-01-01"])
            == "expires 2020-01-01 is in the past; give a later date")
        #expect(Self.problem("PRO", ["action": "grant", "expires": "soon"])?.hasPrefix("expires must be a date") == true)
        #expect(Self.problem("PRO", ["action": "upgrade"])
            == "unknown PRO action \"upgrade\"; expected status, grant, revoke or import")
        #expect(Self.problem("PRO", ["action": "import", "data": "x", "kind": "receipt"])
            == "kind must be auto, transaction, renewal-info or notification, got \"receipt\"")
    }

    @Test("store requests need a positive id, a limit of at least 1 and a page of at least 0; errors carry code invalid")
    func storeFields() {
        for name in ["SHOW", "READ", "DELETE"] {
            #expect(Self.problem(name) == "\(name) needs \"id\": a recording id (a positive integer)")
            #expect(Self.problem(name, ["id": 0]) == "\(name) needs \"id\": a recording id (a positive integer)")
        }
        #expect(Self.problem("LIST", ["limit": 0]) == "limit must be at least 1, got 0")
        #expect(Self.problem("READ", ["id": 3, "from": -1]) == "from must be 0 or a READ reply's next, got -1")
        #expect(Self.decode(Self.line("READ", ["id": 3])) == .success(.read(id: 3, from: 0)))
        guard case .failure(let problem)? = Self.decode(Self.line("SHOW")) else { Issue.record("SHOW without id"); return }
        #expect(problem.line == #"{"class":"ERROR","message":"SHOW needs \"id\": a recording id (a positive integer)","code":"invalid"}"# + "\n")
    }

    @Test("WEB pairs as a watcher unless told, needs a role and a name for a token, and refuses odd names")
    func webFields() {
        #expect(Self.decode(Self.line("WEB", ["action": "pair"])) == .success(.web(.pair(role: .watch, name: nil))))
        #expect(Self.problem("WEB", ["action": "token", "name": "x"]) == "WEB token needs \"role\": watch, record or admin")
        #expect(Self.problem("WEB", ["action": "token", "role": "admin"]) == "WEB token needs \"name\", e.g. \"grafana\"")
        #expect(Self.problem("WEB", ["action": "token", "role": "root", "name": "x"])
            == "role must be watch, record or admin, got \"root\"")
        #expect(Self.problem("WEB", ["action": "pair", "name": " padded"])?.hasPrefix("name must be 1 to 64 characters") == true)
        #expect(Self.problem("WEB", ["action": "revoke"])?.hasPrefix("WEB revoke needs \"name\"") == true)
        #expect(Self.problem("WEB", ["action": "burn"]) == "WEB action must be pair, token, tokens or revoke, got \"burn\"")
    }

    @Test("LABEL needs an id and at least one field, and checks each as griptrack label does")
    func labelFields() {
        #expect(Self.problem("LABEL", ["grip": "open"]) == "LABEL needs \"id\": a recording id (a positive integer)")
        #expect(Self.problem("LABEL", ["id": 3])?.hasPrefix("LABEL needs at least one of") == true)
        #expect(Self.problem("LABEL", ["id": 3, "edge_mm": 0.5]) == "edge depth 0.5 mm is outside 1–100 mm")
        #expect(Self.problem("LABEL", ["id": 3, "hand": "middle"])?.hasPrefix("hand must be") == true)
        #expect(Self.decode(Self.line("LABEL", ["id": 3, "body_weight_kg": 70]))
            == .success(.label(id: 3, RecordingDescription(bodyWeightKilograms: 70))))
        // 1.8: the protocol is checked as `griptrack label --protocol` checks it.
        #expect(Self.problem("LABEL", ["id": 3, "protocol": "cf 24x 7:3 @80%"])
            == "protocol \"cf 24x 7:3 @80%\": column 12: cf is all-out: every rep as hard as possible, so it takes no target band")
        #expect(Self.problem("LABEL", ["id": 3, "protocol_max_kg": 900]) == "protocol max 900.0 kg is outside 1–500 kg")
        #expect(Self.decode(Self.line("LABEL", ["id": 3, "protocol": "cf 24x 7:3", "protocol_max_kg": 41]))
            == .success(.label(id: 3, RecordingDescription(protocolNotation: "cf 24x 7:3", protocolMaxKilograms: 41))))
    }

    @Test("WATCH defaults to enable, keeps the pace unless told, and refuses an unknown pace")
    func watchFields() {
        #expect(Self.decode(Self.line("WATCH")) == .success(.watch(enable: true, pace: nil)))
        #expect(Self.problem("WATCH", ["pace": "fast"])?.hasPrefix("WATCH pace must be \"batched\"") == true)
    }
}
