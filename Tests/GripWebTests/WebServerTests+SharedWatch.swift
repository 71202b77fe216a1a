import Foundation
import GripTestSupport
import Testing
@testable import GripWeb

/// The live stream's one WATCH connection per pace, shared by every browser (docs/web.md, "How it is built").
extension WebServerTests {
    /// The daemon's count of clients watching, from `GET /api/status`.
    static func watching(_ web: WebHarness, _ headers: [String: String]) async throws -> Int? {
        let status = try await web.request("GET", "/api/status", headers: headers)
        return (status.json?["clients"] as? [String: Any])?["watching"] as? Int
    }

    /// Polls the daemon's watcher count until it is `count` (a browser that left is noticed at the next line).
    static func awaitWatching(_ count: Int, _ web: WebHarness, _ headers: [String: String]) async throws -> Int? {
        var seen = try await watching(web, headers)
        let deadline = Date().addingTimeInterval(10)
        while seen != count, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            seen = try await watching(web, headers)
        }
        return seen
    }

    /// Reads `client`'s events until it has `samples` SAMPLES events.
    static func readEvents(_ client: HTTPTestClient, samples: Int) async throws -> [(event: String, data: String)] {
        try await offPool {
            try client.readHead()
            var events: [(event: String, data: String)] = []
            while events.count(where: { $0.event == "SAMPLES" }) < samples {
                guard try client.readSome() else { break }
                events += client.takeEvents()
            }
            return events
        }
    }

    @Test("three browsers share one WATCH connection and get identical lines")
    func sharedWatch() async throws {
        let web = try await WebHarness(capture: "progressor-critical-force.btsnoop", speed: 4)
        let bearer = ["Authorization": "Bearer " + (try await web.token("watch", name: "screens"))]
        let clients = try (0..<3).map { _ in try HTTPTestClient(port: web.port) }
        for client in clients { client.send("GET", "/api/events", headers: bearer) }
        var streams: [[(event: String, data: String)]] = []
        for client in clients { streams.append(try await Self.readEvents(client, samples: 20)) }
        #expect(try await Self.watching(web, bearer) == 1)
        // A browser at the immediate pace has a WATCH of its own, shared with any other at that pace.
        let immediate = try HTTPTestClient(port: web.port)
        immediate.send("GET", "/api/events?pace=immediate", headers: bearer)
        _ = try await Self.readEvents(immediate, samples: 1)
        #expect(try await Self.watching(web, bearer) == 2)
        immediate.disconnect()
        for index in clients.indices { streams[index] += try await Self.readEvents(clients[index], samples: 20) }

        // Each starts as a WATCH connection of its own would: the greeting, then the WATCH reply.
        for stream in streams {
            #expect(stream.prefix(2).map(\.event) == ["VERSION", "WATCH"])
            #expect(stream.prefix(2).map(\.data) == streams[0].prefix(2).map(\.data))
        }
        // Then the same live lines from where the last of them joined (SAMPLES carry their times: none repeats).
        let live = streams.map { Array($0.dropFirst(2)) }
        let common = try #require(live.compactMap(\.first?.data).first { line in
            live.allSatisfy { stream in stream.contains { $0.data == line } }
        }, "no stream's first line reached all three")
        let starts = live.map { stream in stream.firstIndex { $0.data == common }! }
        let overlap = zip(live, starts).map { $0.count - $1 }.min()!
        #expect(overlap >= 30)
        for (stream, start) in zip(live, starts) {
            #expect(stream[start..<start + overlap].map(\.data) == live[0][starts[0]..<starts[0] + overlap].map(\.data))
        }
        try await web.stop()
    }

    @Test("the last browser leaving closes the shared WATCH connection; the next one opens a new one")
    func sharedWatchReopens() async throws {
        let web = try await WebHarness(capture: "progressor-critical-force.btsnoop", speed: 4)
        let bearer = ["Authorization": "Bearer " + (try await web.token("watch", name: "screens"))]
        let clients = try (0..<2).map { _ in try HTTPTestClient(port: web.port) }
        for client in clients {
            client.send("GET", "/api/events", headers: bearer)
            _ = try await Self.readEvents(client, samples: 2)
        }
        #expect(try await Self.watching(web, bearer) == 1)
        clients[0].disconnect()
        _ = try await Self.readEvents(clients[1], samples: 10)
        #expect(try await Self.watching(web, bearer) == 1)
        clients[1].disconnect()
        #expect(try await Self.awaitWatching(0, web, bearer) == 0)

        let again = try HTTPTestClient(port: web.port)
        again.send("GET", "/api/events", headers: bearer)
        let events = try await Self.readEvents(again, samples: 2)
        #expect(again.status == 200)
        #expect(events.prefix(2).map(\.event) == ["VERSION", "WATCH"])
        #expect(events.contains { $0.event == "SAMPLES" })
        #expect(try await Self.watching(web, bearer) == 1)
        try await web.stop()
    }

    @Test("a stream that ends is a whole chunked response: the greeting, the lines, then HTTP's last chunk")
    func streamEndsWhole() async throws {
        let web = try await WebHarness(capture: "progressor-critical-force.btsnoop", speed: 4)
        let bearer = ["Authorization": "Bearer " + (try await web.token("watch", name: "screen"))]
        let stream = try HTTPTestClient(port: web.port)
        stream.send("GET", "/api/events", headers: bearer)
        var events = try await Self.readEvents(stream, samples: 5)
        // The lines are written on the connection's event loop, the response's end by Hummingbird once the stream
        // is over (here: its credential revoked): the end must come after the last line.
        _ = try await web.admin(#"{"class":"WEB","action":"revoke","name":"screen"}"#)
        let complete = try await offPool {
            while try stream.readSome() {}
            return stream.complete
        }
        events += stream.takeEvents()
        #expect(stream.status == 200)
        #expect(complete)
        #expect(events.prefix(2).map(\.event) == ["VERSION", "WATCH"])
        #expect(events.count(where: { $0.event == "SAMPLES" }) >= 5)
        for event in events {
            let object = try JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]
            #expect(object?["class"] as? String == event.event)
        }
        try await web.stop()
    }
}
