import XCTest
import QUIC
import TLS

/// The ClientHello padding extension is one type over TCP (OpenSSL) and QUIC (the GnuTLS shim).
final class ClientHelloPaddingTypeTests: XCTestCase {
    func testTCPAndQUICPadWithTheSameExtensionType() {
        XCTAssertEqual(QUICConfiguration.clientHelloPaddingExtensionType, ClientHelloPadding.extensionType)
    }
}
