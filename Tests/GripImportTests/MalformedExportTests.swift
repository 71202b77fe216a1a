import GripImport
import Testing

/// A malformed file is refused whole with `file:line: what is wrong`.
@Suite("malformed exports")
struct MalformedExportTests {
    static let header = "date,tag,comment,unit,type,max weight\r\n2026-14-03 09:31:55,t,,SI,single,1.0\r\n\r\n"

    /// (file contents, the exact error).
    static let cases: [(text: String, expected: String)] = [
        (header + "time,weight\r\n0.05,1.0\r\n0.06,abc\r\n", "bad.csv:6: weight \"abc\" is not a finite number"),
        (header + "time,weight\r\n0.05,1.0\r\n0.06,\r\n", "bad.csv:6: the weight is empty"),
        (header + "time,weight\r\n0.05,1.0\r\n,2.0\r\n", "bad.csv:6: the time is empty"),
        (header + "time,weight\r\n0.05,1.0\r\n0.06,nan\r\n", "bad.csv:6: weight \"nan\" is not a finite number"),
        (header + "time,weight\r\n0.05,1.0\r\n0.06,1.0,3\r\n", "bad.csv:6: expected `time,weight`, found 3 fields"),
        // Back, but not to before the series' first sample: out of order, not the app starting the series again.
        (header + "time,weight\r\n0.05,1.0\r\n0.50,1.0\r\n0.06,1.0\r\n", "bad.csv:7: time goes back: 0.06 s after 0.50 s on line 6"),
        (header + "time,weight\r\n", "bad.csv:4: the `time,weight` series has no samples"),
        (header, "bad.csv:3: the file ends before the `time,weight` line: there is no force series"),
        ("date,tag,comment,unit,type,max weight\r\n", "bad.csv:1: the line of values under the field names is missing"),
        ("date,tag,comment,unit,type,max weight\r\n,t,,SI,single,1\r\n", "bad.csv:2: the date is empty: a recording needs the time it was made"),
        ("date,tag,comment,unit,type,max weight\r\n14.03.2026,t,,SI,single,1\r\n", "bad.csv:2: date \"14.03.2026\" is not YYYY-DD-MM HH:MM:SS"),
        ("date,tag,comment,unit,type,max weight\r\n2026-14-03,t,,lbs,single,1\r\n",
         "bad.csv:2: unit \"lbs\": only kilogram (SI) exports can be imported; export in SI units in the app"),
        ("date,tag,comment,unit,type,max weight\r\n2026-14-03,t,,SI,single,heavy\r\n", "bad.csv:2: `max weight` is not a number: \"heavy\""),
        ("date,tag,unit\r\n2026-14-03,t,SI,extra\r\n", "bad.csv:2: 4 values for 3 field names"),
        ("date,tag,\"comment\r\n", "bad.csv:1: unterminated quote in field 3"),
        ("date,tag,comment,unit\r\n2026-14-03,t,,SI\r\n", "bad.csv:1: unknown test: the fields name none of peak (max weight), endurance (max, avg), RFD (rfd2080) or critical force"),
        ("hello\r\n", "bad.csv:1: not a Tindeq export: the first line should name the fields, starting with `date` (found \"hello\")"),
        ("", "bad.csv: the file is empty"),
        ("time,weight\r\n0.05,1.0\r\n", "bad.csv:1: a repeaters data set without its info.csv: import the whole bundle (the .zip or its folder)"),
        ("date,tag,comment,unit,reps,work dur.,pause btw. reps,sets,pause btw. sets\r\n2026-14-03,t,,SI,3,7,3,1,0\r\n",
         "bad.csv:1: the info.csv of a repeaters bundle: import the whole bundle (the .zip or its folder)"),
    ]

    @Test("each kind of damage names its file and line", arguments: cases)
    func damage(text: String, expected: String) {
        #expect(ImportFixtures.error(text) == expected)
    }

    @Test("bytes that are not UTF-8 are refused on their line")
    func notUTF8() {
        let bytes = Array(Self.header.utf8) + Array("time,weight\r\n0.05,".utf8) + [0xFF, 0xFE] + Array("\r\n".utf8)
        #expect(throws: GripImportError(file: "b.csv", line: 5, "not UTF-8 text: is this a CSV export?")) {
            try TindeqExport.parse(bytes, fileName: "b.csv")
        }
    }

    @Test("a damaged data set in a bundle names the file inside the bundle")
    func damagedDataSet() throws {
        #expect(throws: GripImportError(file: "r.zip/data_set_2.csv", line: 3, "weight \"x\" is not a finite number")) {
            try TindeqExport.parseRepeaters(
                bundle: "r.zip",
                info: NamedFile(name: "r.zip/info.csv", bytes: try ImportFixtures.bytes("repeaters/info.csv")),
                dataSets: [
                    NamedFile(name: "r.zip/data_set_1.csv", bytes: try ImportFixtures.bytes("repeaters/data_set_1.csv")),
                    NamedFile(name: "r.zip/data_set_2.csv", bytes: Array("time,weight\r\n0.1,1\r\n0.2,x\r\n".utf8)),
                ])
        }
    }
}
