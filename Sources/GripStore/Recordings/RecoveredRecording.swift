import GripAnalysis

/// The analysis of a recording whose writer died: its committed samples through the live path's segmenter.
enum RecoveredRecording {
    /// Segments the samples as one recording from the first sample to the last, with the default settings. Every
    /// effort the segmenter closes counts, across any long rest inside; the last one is `open` when the crash cut it.
    ///
    /// - Parameter samples: The committed samples in order (stream µs, kg as reported).
    /// - Returns: One recording holding every effort found (none when there were none).
    static func analyse(_ samples: [StoredSample]) -> Recording {
        var segmenter = EffortSegmenter()
        var efforts: [Effort] = []
        var falseStarts = 0
        let collect: (SegmentEvent) -> Void = { event in
            if case .recordingEnded(let recording) = event {
                efforts += recording.efforts
                falseStarts += recording.falseStartsDropped
            }
        }
        let start = samples.first?.micros ?? 0
        segmenter.beginRecording(atMicros: start, emit: collect)
        for sample in samples {
            segmenter.ingest(micros: sample.micros, kilograms: sample.kilograms, emit: collect)
        }
        segmenter.endOfStream(emit: collect)
        return Recording(
            startMicros: start, endMicros: samples.last?.micros ?? start, efforts: efforts,
            falseStartsDropped: falseStarts)
    }
}
