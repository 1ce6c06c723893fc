import XCTest
import BenchCore
@testable import NetbenchCommands

/// How `report --push` reads a Pushgateway's answer (HTTPCodec's response parser): the status line
/// of a 2xx, the refusal's body with its framing removed, and what is not HTTP at all.
final class MetricsPushAnswerTests: XCTestCase {
    let url = "http://gateway:9091/metrics/job/netbench"

    func message(_ answer: String) -> String {
        do {
            _ = try MetricsPush.accepted(Array(answer.utf8), url: url)
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    func testA2xxAnswerGivesItsStatusLine() throws {
        let ok = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"
        XCTAssertEqual(try MetricsPush.accepted(Array(ok.utf8), url: url), "HTTP/1.1 200 OK")
        let interim = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nConnection: close\r\n\r\n"
        XCTAssertEqual(try MetricsPush.accepted(Array(interim.utf8), url: url), "HTTP/1.1 202 Accepted")
    }

    func testARefusalNamesTheStatusAndTheBodyWithoutChunkFraming() {
        let chunked =
            "HTTP/1.1 400 Bad Request\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "4\r\nbad \r\n7\r\nmetric\n\r\n0\r\n\r\n"
        let refused = "\(url): the Pushgateway refused the metrics: "
        XCTAssertEqual(message(chunked), refused + "HTTP/1.1 400 Bad Request: bad metric")
        let sized = "HTTP/1.1 409 Conflict\r\nContent-Length: 5\r\n\r\nclash and what follows is not the body"
        XCTAssertEqual(message(sized), refused + "HTTP/1.1 409 Conflict: clash")
        let bare = "HTTP/1.0 500 Internal Server Error"
        XCTAssertEqual(message(bare + "\r\n\r\n"), refused + bare)
    }

    func testAnAnswerThatIsNotHTTPIsNamed() {
        XCTAssertEqual(message("SSH-2.0-OpenSSH_9.2\r\n"), "\(url): not an HTTP answer: SSH-2.0-OpenSSH_9.2")
        XCTAssertEqual(message(""), "\(url): not an HTTP answer: (connection closed without one)")
    }
}
