/// Walks a chunked body (RFC 9112 §7.1) and counts its data bytes without copying them.
///
/// Chunk extensions and trailer fields are skipped (netbench needs neither), within limits so
/// a peer cannot make the decoder scan forever.
struct ChunkedBodyDecoder {
    private enum State {
        case size  // hex digits of chunk-size
        case sizeExtension  // BWS / ";" ext ... up to the line end
        case sizeLF  // CR seen after the size line
        case data  // chunkRemaining bytes of chunk data
        case dataCR  // CRLF after chunk data
        case dataLF
        case trailerLineStart
        case trailerLine
        case finalLF
        case done
    }

    static let maxSizeLine = 4096
    static let maxTrailerBytes = 65536

    private var state = State.size
    private var chunkSize: UInt64 = 0
    private var digits = 0
    private var chunkRemaining: UInt64 = 0
    private var lineBytes = 0
    private var trailerBytes = 0

    var isDone: Bool { if case .done = state { true } else { false } }

    /// Consumes as much of `input` as belongs to the body.
    /// - Returns: bytes consumed, chunk-data bytes among them, and whether the body ended.
    mutating func decode(_ input: UnsafeRawBufferPointer) throws(HTTP1ParseError)
        -> (consumed: Int, dataBytes: Int, finished: Bool)
    {
        var index = 0
        var dataBytes = 0
        while index < input.count {
            if case .data = state {
                let n = Int(min(UInt64(input.count - index), chunkRemaining))
                index += n
                dataBytes += n
                chunkRemaining -= UInt64(n)
                if chunkRemaining == 0 { state = .dataCR }
                continue
            }
            try step(input[index])
            index += 1
            if case .done = state { return (index, dataBytes, true) }
        }
        return (index, dataBytes, false)
    }

    private mutating func step(_ byte: UInt8) throws(HTTP1ParseError) {
        switch state {
        case .size:
            if let v = hexValue(byte) {
                digits += 1
                guard digits <= 15 else { throw HTTP1ParseError(.badChunk, "chunk size over 15 hex digits") }
                chunkSize = chunkSize << 4 | UInt64(v)
            } else if digits == 0 {
                throw HTTP1ParseError(.badChunk, "expected a hex chunk size, got \(HTTP1ParseError.quote([byte]))")
            } else if byte == 0x0D {
                state = .sizeLF
            } else if byte == 0x0A {
                endSizeLine()
            } else if byte == UInt8(ascii: ";") || byte == 0x20 || byte == 0x09 {
                state = .sizeExtension
                lineBytes = digits + 1
            } else {
                throw HTTP1ParseError(.badChunk, "unexpected \(HTTP1ParseError.quote([byte])) after the chunk size")
            }
        case .sizeExtension:
            lineBytes += 1
            guard lineBytes <= Self.maxSizeLine else {
                throw HTTP1ParseError(.badChunk, "chunk extension over \(Self.maxSizeLine) bytes")
            }
            if byte == 0x0D { state = .sizeLF } else if byte == 0x0A { endSizeLine() }
        case .sizeLF:
            guard byte == 0x0A else { throw HTTP1ParseError(.badChunk, "CR without LF in a chunk size line") }
            endSizeLine()
        case .data:
            preconditionFailure("chunk data is consumed in bulk")
        case .dataCR:
            if byte == 0x0D {
                state = .dataLF
            } else if byte == 0x0A {
                state = .size
            } else {
                throw HTTP1ParseError(.badChunk, "chunk data longer than its size")
            }
        case .dataLF:
            guard byte == 0x0A else { throw HTTP1ParseError(.badChunk, "CR without LF after chunk data") }
            state = .size
        case .trailerLineStart, .trailerLine:
            trailerBytes += 1
            guard trailerBytes <= Self.maxTrailerBytes else {
                throw HTTP1ParseError(.badChunk, "trailer section over \(Self.maxTrailerBytes) bytes")
            }
            if byte == 0x0A {
                state = state == .trailerLineStart ? .done : .trailerLineStart
            } else if byte == 0x0D, state == .trailerLineStart {
                state = .finalLF
            } else {
                state = .trailerLine
            }
        case .finalLF:
            guard byte == 0x0A else { throw HTTP1ParseError(.badChunk, "CR without LF at the end of the body") }
            state = .done
        case .done:
            preconditionFailure("decode stops at the end of the body")
        }
    }

    private mutating func endSizeLine() {
        if chunkSize == 0 {
            state = .trailerLineStart
        } else {
            chunkRemaining = chunkSize
            state = .data
        }
        chunkSize = 0
        digits = 0
        lineBytes = 0
    }

    private func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
