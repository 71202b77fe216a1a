import Foundation
import GRDB

/// A few consecutive stored sample chunks of one recording: what one page of a chunked export holds.
public struct SamplePage: Sendable, Equatable {
    /// The samples, bit for bit as appended.
    public var samples: [StoredSample]
    /// The chunk sequence to ask for next, or `nil` when this page holds the recording's last chunk.
    public var nextSequence: Int?

    /// Creates a page.
    /// - Parameters:
    ///   - samples: The samples of the page's chunks, in order.
    ///   - nextSequence: The first chunk of the next page, or `nil` at the end.
    public init(samples: [StoredSample], nextSequence: Int?) {
        self.samples = samples
        self.nextSequence = nextSequence
    }
}

extension RecordingStore {
    /// Reads a recording's samples a few chunks at a time, so a long recording is never loaded whole.
    ///
    /// Chunks are numbered from 0 without gaps and hold at most half a second of samples each, so a page of
    /// `maxChunks` chunks is small whatever the recording's length.
    ///
    /// - Parameters:
    ///   - id: The recording.
    ///   - sequence: The first chunk to read (0 for the beginning).
    ///   - maxChunks: How many chunks at most (at least 1 is read).
    /// - Returns: The samples of those chunks and where the next page starts.
    /// - Throws: ``GripStoreError/recordingNotFound(_:)``, ``GripStoreError/corruptSampleChunk(_:sequence:detail:)``,
    ///   or an SQLite error.
    public func samplePage(of id: RecordingID, fromSequence sequence: Int, maxChunks: Int) throws(GripStoreError) -> SamplePage {
        let count = max(1, maxChunks)
        let chunks = try read("read the samples of recording \(id)") { db in
            _ = try Self.fetchRecording(db, id)
            return try SampleChunkRecord
                .filter(Column("recordingId") == id.rawValue && Column("sequence") >= max(0, sequence))
                .order(Column("sequence"))
                .limit(count + 1)
                .fetchAll(db)
        }
        var samples: [StoredSample] = []
        for chunk in chunks.prefix(count) {
            guard chunk.encoding == SampleChunkCodec.encoding else {
                throw .corruptSampleChunk(id, sequence: chunk.sequence, detail: "unknown encoding \(chunk.encoding)")
            }
            switch SampleChunkCodec.decode(firstMicros: chunk.firstMicros, count: chunk.sampleCount, bytes: chunk.samples) {
            case .success(let decoded): samples += decoded
            case .failure(let failure): throw .corruptSampleChunk(id, sequence: chunk.sequence, detail: failure.detail)
            }
        }
        return SamplePage(samples: samples, nextSequence: chunks.count > count ? chunks[count].sequence : nil)
    }
}
