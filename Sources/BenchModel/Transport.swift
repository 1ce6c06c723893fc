import BenchCore

import Foundation

extension TransportKind: NamedValues {}
extension RunClient: NamedValues {}
