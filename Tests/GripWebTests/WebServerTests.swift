import Foundation
import GripStore
import GripTestSupport
import Testing
@testable import GripWeb

/// The web app over real HTTP on 127.0.0.1, against an in-process daemon replaying a capture (docs/web.md).
@Suite("Web app", .serialized)
struct WebServerTests {
    @Test("the pages and assets are served without credentials; nothing else from a path")
    func assetsOnly() async throws {
        let web = try await WebHarness()
        defer { Task { try await web.stop() } }
        let page = try await web.request("GET", "/")
        #expect(page.status == 200)
        #expect(page.header("content-type")?.hasPrefix("text/html") == true)
        #expect(page.body.contains("/assets/live.js"))
        #expect(page.header("content-security-policy")?.contains("default-src 'self'") == true)
        #expect(try await web.request("GET", "/history").status == 200)
        let script = try await web.request("GET", "/assets/live.js")
        #expect(script.status == 200)
        #expect(script.header("content-type")?.hasPrefix("text/javascript") == true)
        for path in ["/assets/..%2F..%2Fetc%2Fpasswd", "/assets/../Package.swift", "/etc/passwd", "/assets/Live.js"] {
            let response = try await web.request("GET", path)
            #expect(response.status == 404, "\(path)")
            #expect(!response.body.contains("root:"))
        }
        try await web.stop()
    }

    @Test("every API endpoint refuses a request without credentials with 401 and says how to pair")
    func unauthenticated() async throws {
        let web = try await WebHarness()
        for (method, path) in [
            ("GET", "/api/session"), ("GET", "/api/status"), ("GET", "/api/plan"), ("GET", "/api/recordings"), ("GET", "/api/recordings/1"),
            ("GET", "/api/recordings/1/samples"), ("GET", "/api/events"), ("POST", "/api/record"), ("POST", "/api/stop"),
            ("POST", "/api/tare"), ("GET", "/metrics"),
        ] {
            let response = try await web.request(method, path)
            #expect(response.status == 401, "\(method) \(path)")
            #expect((response.json?["error"] as? String)?.contains("griptrack web pair") == true, "\(method) \(path)")
        }
        let wrong = try await web.request("GET", "/api/status", headers: ["Authorization": "Bearer not-a-token"])
        #expect(wrong.status == 401)
        try await web.stop()
    }

    @Test("WEB requests need root or group griptrack-admin: a member of the watch group is refused")
    func webRequestsNeedAdmin() async throws {
        // The watch group is root's group here, and the peer a user in it who is neither root nor an admin.
        let web = try await WebHarness { configuration in
            configuration.watchGroup = "root"
            configuration.peerOverride = { _, _ in (4242, [0]) }
        }
        for request in [
            #"{"class":"WEB","action":"pair"}"#, #"{"class":"WEB","action":"token","role":"watch","name":"x"}"#,
            #"{"class":"WEB","action":"tokens"}"#, #"{"class":"WEB","action":"revoke","name":"x"}"#,
        ] {
            let reply = try await web.admin(request)
            #expect(reply["class"] as? String == "ERROR", "\(request)")
            #expect(reply["code"] as? String == "not_authorized", "\(request)")
            #expect((reply["message"] as? String)?.contains("griptrack-admin") == true, "\(request)")
        }
        #expect(try await web.admin(#"{"class":"WEB","action":"poke"}"#)["class"] as? String == "ERROR")
        try await web.stop()
    }

    @Test("anonymous = watch lets a visitor watch but not record")
    func anonymousWatch() async throws {
        let web = try await WebHarness(anonymous: .watch)
        let session = try await web.request("GET", "/api/session")
        #expect(session.status == 200)
        #expect(session.json?["role"] as? String == "watch")
        #expect(try await web.request("GET", "/api/status").status == 200)
        #expect(try await web.request("POST", "/api/stop", body: "{}").status == 403)
        try await web.stop()
    }

    @Test("a pairing code works once, sets an HttpOnly SameSite=Strict cookie, and the session has its role")
    func pairing() async throws {
        let web = try await WebHarness()
        let code = try await web.pairingCode("record", name: "tablet")
        let paired = try await web.request("GET", "/pair?code=\(code)")
        #expect(paired.status == 303)
        #expect(paired.header("location") == "/")
        let cookie = try #require(paired.headers("set-cookie").first)
        #expect(cookie.hasPrefix("griptrack_session="))
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Strict"))
        #expect(cookie.contains("Path=/"))
        let value = String(cookie.split(separator: ";")[0])
        let session = try await web.request("GET", "/api/session", headers: ["Cookie": value])
        #expect(session.status == 200)
        #expect(session.json?["role"] as? String == "record")
        #expect(session.json?["name"] as? String == "tablet")
        #expect((session.json?["csrf"] as? String)?.count == 32)

        let again = try await web.request("GET", "/pair?code=\(code)")
        #expect(again.status == 403)
        #expect((again.json?["error"] as? String)?.contains("unknown, used or expired") == true)
        let listed = try await web.admin(#"{"class":"WEB","action":"tokens"}"#)
        let credentials = try #require(listed["credentials"] as? [[String: Any]])
        #expect(credentials.map { $0["name"] as? String } == ["tablet"])
        #expect(credentials.first?["kind"] as? String == "session")
        #expect(!String(describing: listed).contains(String(value.dropFirst("griptrack_session=".count))))
        try await web.stop()
    }

    @Test("refused pairing codes are limited to 20 a minute per address; codes that pair use none of it")
    func pairingRateLimit() async throws {
        let web = try await WebHarness()
        // A gym's tablets behind one address pair one after another: none is refused for the others' success.
        for index in 0..<25 {
            let code = try await web.pairingCode("watch", name: "tablet-\(index)")
            #expect(try await web.request("GET", "/pair?code=\(code)").status == 303)
        }
        for _ in 0..<WebSettings.pairingRefusalsPerMinute {
            #expect(try await web.request("GET", "/pair?code=WRONGCODE").status == 403)
        }
        let code = try await web.pairingCode("watch", name: "late")
        let limited = try await web.request("GET", "/pair?code=\(code)")
        #expect(limited.status == 429)
        #expect((limited.json?["error"] as? String)?.contains("wait a minute") == true)
        try await web.stop()
    }

    @Test("/metrics serves the daemon's Prometheus exposition to a watch token, as text")
    func metrics() async throws {
        let web = try await WebHarness()
        let watch = ["Authorization": "Bearer " + (try await web.token("watch", name: "prometheus"))]
        let response = try await web.request("GET", "/metrics", headers: watch)
        #expect(response.status == 200)
        #expect(response.header("content-type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.body.contains("# TYPE griptrack_notifications_total counter"), "\(response.body.prefix(400))")
        #expect(response.body.contains("\ngriptrack_clients "), "the web app's own connections are clients")
        try await web.stop()
    }

    @Test("roles: watch reads, record starts and stops, and the stored recording is served with its samples")
    func roles() async throws {
        let web = try await WebHarness()
        let watch = ["Authorization": "Bearer " + (try await web.token("watch", name: "screen"))]
        let record = ["Authorization": "Bearer " + (try await web.token("record", name: "coach"))]

        let status = try await web.request("GET", "/api/status", headers: watch)
        #expect(status.status == 200)
        #expect(status.json?["class"] as? String == "STATUS")
        let plan = try await web.request("GET", "/api/plan", headers: watch)
        #expect(plan.json?["class"] as? String == "PLAN")
        #expect(plan.json?["tier"] as? String == "free")
        let refused = try await web.request("POST", "/api/record", headers: watch, body: "{}")
        #expect(refused.status == 403)
        #expect((refused.json?["error"] as? String)?.contains("record role") == true)

        // Start the replay (it waits for a watcher), record a while, stop.
        let stream = try HTTPTestClient(port: web.port)
        stream.send("GET", "/api/events", headers: watch)
        let started = try await web.request(
            "POST", "/api/record", headers: record, body: #"{"hand":"left","label":"web test"}"#)
        #expect(started.status == 200, "\(started.body)")
        #expect(started.json?["class"] as? String == "RECORD")
        let id = try #require(started.json?["id"] as? Int)
        try await Task.sleep(for: .seconds(2))
        let stopped = try await web.request("POST", "/api/stop", headers: record, body: "")
        #expect(stopped.status == 200, "\(stopped.body)")
        #expect(stopped.json?["id"] as? Int == id)

        let list = try await web.request("GET", "/api/recordings", headers: watch)
        #expect(list.status == 200)
        let recordings = try #require(list.json?["recordings"] as? [[String: Any]])
        #expect(recordings.first?["id"] as? Int == id)
        #expect(recordings.first?["label"] as? String == "web test")
        let one = try await web.request("GET", "/api/recordings/\(id)", headers: watch)
        #expect(one.status == 200)
        #expect((one.json?["recording"] as? [String: Any])?["hand"] as? String == "left")
        #expect(one.json?["imported"] == nil, "a recording griptrack measured has no app figures")
        let samples = try await web.request("GET", "/api/recordings/\(id)/samples", headers: watch)
        #expect(samples.status == 200)
        let t = try #require(samples.json?["t"] as? [Double])
        let kg = try #require(samples.json?["kg"] as? [Double])
        #expect(t.count == kg.count)
        #expect(t.count == (recordings.first?["samples"] as? Int))
        #expect(try await web.request("GET", "/api/recordings/999", headers: watch).status == 404)
        #expect(try await web.request("GET", "/api/recordings/abc", headers: watch).status == 400)
        try await web.stop()
    }

    @Test("a cookie session needs the CSRF header to change anything; a bearer token does not")
    func csrf() async throws {
        let web = try await WebHarness()
        let code = try await web.pairingCode("record")
        let cookie = String(try #require(try await web.request("GET", "/pair?code=\(code)").headers("set-cookie").first)
            .split(separator: ";")[0])
        let csrf = try #require(try await web.request("GET", "/api/session", headers: ["Cookie": cookie]).json?["csrf"] as? String)

        let without = try await web.request("POST", "/api/stop", headers: ["Cookie": cookie], body: "{}")
        #expect(without.status == 403)
        #expect((without.json?["error"] as? String)?.contains("X-CSRF-Token") == true)
        let wrong = try await web.request("POST", "/api/stop", headers: ["Cookie": cookie, "X-CSRF-Token": String(repeating: "0", count: 32)], body: "{}")
        #expect(wrong.status == 403)
        // With the header the request reaches the daemon, which has nothing to stop.
        let with = try await web.request("POST", "/api/stop", headers: ["Cookie": cookie, "X-CSRF-Token": csrf], body: "{}")
        #expect(with.status == 409, "\(with.body)")
        #expect((with.json?["error"] as? String)?.contains("no recording in progress") == true)

        let bearer = ["Authorization": "Bearer " + (try await web.token("record", name: "script"))]
        let tare = try await web.request("POST", "/api/tare", headers: bearer, body: "{}")
        #expect(tare.status == 409, "\(tare.body)")  // a replay has no device to tare
        try await web.stop()
    }

    @Test("a body over 16 KiB gets 413; a body that is not a JSON object gets 400")
    func bodies() async throws {
        let web = try await WebHarness()
        let bearer = ["Authorization": "Bearer " + (try await web.token("record", name: "script"))]
        let big = #"{"label":""# + String(repeating: "x", count: 17 * 1024) + #""}"#
        let tooLarge = try await web.request("POST", "/api/record", headers: bearer, body: big)
        #expect(tooLarge.status == 413)
        #expect((tooLarge.json?["error"] as? String)?.contains("16384 bytes") == true)
        #expect(try await web.request("POST", "/api/record", headers: bearer, body: "[1,2]").status == 400)
        #expect(try await web.request("POST", "/api/record", headers: bearer, body: #"{"hand":3}"#).status == 400)
        // Strict JSON: each of these was accepted before (a value of another type, a trailing comma, a repeated key,
        // UTF-16, a label that reorders the text after it); each is refused with what is wrong.
        let refused: [(body: String, says: String)] = [
            (#"{"protocol":"max","protocol_max_kg":true}"#, "protocol_max_kg must be a number"),
            (#"{"save":1}"#, "save must be true or false"),
            (#"{"label":"warm-up",}"#, "not strict JSON"),
            (#"{"label":"a","label":"b"}"#, "not strict JSON"),
            ("{\"label\":\"left\u{202E}thgir\"}", "bidirectional control (U+202E)"),
        ]
        for (body, says) in refused {
            let answer = try await web.request("POST", "/api/record", headers: bearer, body: body)
            #expect(answer.status == 400, "\(body): \(answer.body)")
            #expect((answer.json?["error"] as? String)?.contains(says) == true, "\(body): \(answer.body)")
        }
        let utf16 = try await web.request(
            "POST", "/api/record", headers: bearer,
            body: String(decoding: Array(#"{"save":false}"#.utf16).flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] }, as: UTF8.self))
        #expect(utf16.status == 400, "\(utf16.body)")
        try await web.stop()
    }

    @Test("a revoked token is refused at once, and its open event stream ends")
    func revocation() async throws {
        let web = try await WebHarness()
        let token = try await web.token("watch", name: "kiosk")
        let bearer = ["Authorization": "Bearer " + token]
        #expect(try await web.request("GET", "/api/status", headers: bearer).status == 200)
        let stream = try HTTPTestClient(port: web.port)
        stream.send("GET", "/api/events", headers: bearer)
        let firstEvents = try await offPool {
            try stream.readHead()
            while !stream.takeEvents().contains(where: { $0.event == "SAMPLES" }) { try stream.readSome() }
            return stream.status
        }
        #expect(firstEvents == 200)

        let revoked = try await web.admin(#"{"class":"WEB","action":"revoke","name":"kiosk"}"#)
        #expect(revoked["revoked"] as? Bool == true)
        #expect(try await web.request("GET", "/api/status", headers: bearer).status == 401)
        let ended = try await offPool {
            let deadline = Date().addingTimeInterval(5)
            while Date() < deadline, try stream.readSome() {}
            return stream.closed
        }
        #expect(ended)
        let listed = try await web.admin(#"{"class":"WEB","action":"tokens"}"#)
        #expect((listed["credentials"] as? [[String: Any]])?.first?["revoked"] != nil)
        try await web.stop()
    }

    @Test("the event stream forwards the daemon's lines: event is the class, data the JSON line")
    func events() async throws {
        let web = try await WebHarness(speed: 50)
        let bearer = ["Authorization": "Bearer " + (try await web.token("watch", name: "screen"))]
        #expect(try await web.request("GET", "/api/events?pace=now", headers: bearer).status == 400)
        let stream = try HTTPTestClient(port: web.port)
        stream.send("GET", "/api/events?pace=immediate", headers: bearer)
        let events = try await offPool {
            try stream.readHead()
            var events: [(event: String, data: String)] = []
            while !events.contains(where: { $0.event == "EFFORT" && $0.data.contains(#""event":"end""#) }) {
                try stream.readSome()
                events += stream.takeEvents()
            }
            return events
        }
        #expect(stream.header("content-type") == "text/event-stream")
        #expect(events.first?.event == "VERSION")
        #expect(events.contains { $0.event == "WATCH" && $0.data.contains(#""pace":"immediate""#) })
        for event in events {
            let object = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
            #expect(object?["class"] as? String == event.event)
        }
        #expect(events.contains { $0.event == "SAMPLES" })
        try await web.stop()
    }

    @Test("a browser that never reads is dropped while two others on the same WATCH keep receiving")
    func slowBrowserDropped() async throws {
        // 19,772 samples (about 4 minutes at 80 Hz) replayed at 25× while one browser reads nothing; the stream
        // ends with the capture.
        let web = try await WebHarness(
            capture: "progressor-critical-force.btsnoop", speed: 25, eventBacklogLines: 4, eventSendBufferBytes: 4096,
            keepsStreamOpen: false)
        let bearer = ["Authorization": "Bearer " + (try await web.token("watch", name: "screens"))]
        let stalled = try HTTPTestClient(port: web.port, receiveBuffer: 4096, timeoutSeconds: 30)
        stalled.send("GET", "/api/events", headers: bearer)
        let readers = try (0..<2).map { _ in try HTTPTestClient(port: web.port, timeoutSeconds: 1) }
        for reader in readers { reader.send("GET", "/api/events", headers: bearer) }
        // Each reader reads every line as it comes, on a thread of its own, until the recording's end, which the
        // capture's end brings.
        @Sendable func readAll(_ reader: HTTPTestClient) async throws -> Int {
            try await offPool {
                try reader.readHead()
                var samples = 0
                var ended = false
                let start = Date()
                // A bound against a hang, not a speed check: the capture's end ends the loop (247 s at 25× is 10 s;
                // the whole suite running beside it on two cores has stretched that to over 30 s).
                while !ended, Date().timeIntervalSince(start) < 120 {
                    _ = try? reader.readSome()
                    for event in reader.takeEvents() {
                        ended = ended || (event.event == "RECORDING" && event.data.contains(#""event":"end""#))
                        guard event.event == "SAMPLES" else { continue }
                        let object = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
                        samples += (object?["kg"] as? [Any])?.count ?? 0
                    }
                }
                return samples
            }
        }
        async let first = readAll(readers[0])
        async let second = readAll(readers[1])
        let counts = try await [first, second]
        // Every sample the daemon decoded (a loaded machine may drop a few notifications from the replay's ring, as
        // from a radio), to both readers: the stalled browser held them back by nothing.
        #expect(counts[0] > 19_500)
        #expect(counts[1] > 19_500)
        let samples = counts.min()!
        // The stalled browser was disconnected part of the way through: what the kernel still held for it, then the
        // end, without the rest of the capture.
        let (dropped, stalledSamples) = try await offPool {
            while try stalled.readSome() {}
            var samples = 0
            for event in stalled.takeEvents() where event.event == "SAMPLES" {
                let object = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
                samples += (object?["kg"] as? [Any])?.count ?? 0
            }
            return (stalled.closed, samples)
        }
        #expect(dropped)
        #expect(stalledSamples < samples / 2)
        try await web.stop()
    }
}
