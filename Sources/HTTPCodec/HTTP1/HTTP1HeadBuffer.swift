#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Collects the bytes of one message head (start line + fields + empty line) across `feed`
/// calls, stopping exactly at the empty line so that what follows (body, next pipelined
/// message) stays with the caller.
///
/// Lines end in CRLF or a bare LF (RFC 9112 §2.2 lets a recipient accept LF). Empty lines
/// before the start line are skipped, as RFC 9112 §2.2 recommends for robustness.
struct HTTP1HeadBuffer {
    let limit: Int
    private(set) var bytes: [UInt8] = []
    /// Where the line being collected starts in `bytes`.
    private var lineStart = 0

    init(limit: Int) {
        self.limit = limit
        bytes.reserveCapacity(1024)
    }

    var isEmpty: Bool { bytes.isEmpty }

    /// Appends input up to and including the head's final empty line.
    /// - Returns: how many bytes of `input` were taken and whether the head is complete.
    mutating func append(_ input: UnsafeRawBufferPointer) throws(HTTP1ParseError) -> (consumed: Int, complete: Bool) {
        var index = 0
        while index < input.count {
            // Never scan (or keep) more than one byte past the limit.
            let scanEnd = min(input.count, index + (limit + 1 - bytes.count))
            guard let lf = firstLF(input, from: index, to: scanEnd) else {
                bytes.append(contentsOf: input[index..<scanEnd])
                index = scanEnd
                try checkLimit()
                continue
            }
            bytes.append(contentsOf: input[index...lf])
            index = lf + 1
            let lineLength = bytes.count - lineStart
            let isEmptyLine = lineLength == 1 || (lineLength == 2 && bytes[lineStart] == 0x0D)
            if isEmptyLine {
                if lineStart == 0 {
                    bytes.removeAll(keepingCapacity: true)  // empty line before the start line
                    continue
                }
                return (index, true)
            }
            lineStart = bytes.count
            try checkLimit()
        }
        return (index, false)
    }

    /// The head's lines without terminators (the final empty line excluded).
    /// A CR anywhere but before the LF is an error: it could smuggle a line break past a proxy.
    func lines() throws(HTTP1ParseError) -> [ArraySlice<UInt8>] {
        var result: [ArraySlice<UInt8>] = []
        var start = 0
        for (i, byte) in bytes.enumerated() where byte == 0x0A {
            var end = i
            if end > start && bytes[end - 1] == 0x0D { end -= 1 }
            let line = bytes[start..<end]
            if line.contains(0x0D) {
                throw HTTP1ParseError(.badHeaderLine, "bare CR in \(HTTP1ParseError.quote(line))")
            }
            result.append(line)
            start = i + 1
        }
        if let last = result.last, last.isEmpty { result.removeLast() }
        return result
    }

    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        lineStart = 0
    }

    private func checkLimit() throws(HTTP1ParseError) {
        if bytes.count > limit {
            throw HTTP1ParseError(.headerTooLarge, "more than \(limit) bytes before the end of the header block")
        }
    }

    private func firstLF(_ input: UnsafeRawBufferPointer, from: Int, to: Int) -> Int? {
        guard from < to, let base = input.baseAddress else { return nil }
        guard let hit = memchr(base + from, 0x0A, to - from) else { return nil }
        return UnsafeRawPointer(hit) - base
    }
}
