import XCTest
@testable import HTTPCodec
