import BenchCore

/// FQ-CoDel (RFC 8290, as Linux's `sch_fq_codel` runs it): packets are hashed on their 5-tuple
/// (`Packet.flowHash`) into `flows` queues, each with its own CoDel state; a deficit round robin
/// with a `quantum` of bytes serves newly active flows (the new list) before the others (the old
/// list), so a sparse flow's packets wait behind one quantum at most. Over `limit` packets or
/// `memoryLimit` bytes, it drops from the head of the fattest flow, up to `dropBatch` packets or
/// half that flow's bytes.
///
/// Fixed memory: the flows are arrays, their packets live in one slab of slots linked by index,
/// which grows by doubling only up to the largest backlog seen; nothing is allocated per packet.
/// The state is one struct (`FlowQueues`) that the class reaches once per call: its arrays are
/// then accessed without the runtime's exclusivity checks, which a class's stored arrays pay on
/// every access (measured in the packet loop: 5% of its CPU at 64 flows, 100 Mbit/s).
public final class FQCoDel: QueueDiscipline {
    public let parameters: FQCoDelParameters
    private var queues: FlowQueues

    public var backlogPackets: Int { queues.backlogPackets }
    public var backlogBytes: Int { queues.backlogBytes }
    /// Packets dropped because the limit or the memory limit was exceeded (Linux's drop_overlimit).
    public var droppedOverLimit: Int { queues.droppedOverLimit }
    /// Times a flow was (re)activated onto the new list.
    public var newFlowCount: Int { queues.newFlowCount }

    public init(_ parameters: FQCoDelParameters) {
        self.parameters = parameters
        queues = FlowQueues(parameters)
    }

    /// The flow queue a hash lands in (Linux's reciprocal_scale).
    public func flowIndex(ofHash hash: UInt32) -> Int { queues.flowIndex(ofHash: hash) }

    /// Bytes queued in one flow (for tests).
    func bytes(inFlow i: Int) -> Int { queues.flowBytes[i] }

    public func enqueue(_ packet: Packet, now: Instant, serving: Int, sink: any DisciplineSink) -> Bool {
        queues.enqueue(packet, now: now, sink: sink)
    }

    public func dequeue(now: Instant, sink: any DisciplineSink) -> Packet? { queues.dequeue(now: now, sink: sink) }

    public func flush(_ body: (Packet) -> Void) { queues.flush(body) }
}

/// FQ-CoDel's flows, their CoDel states, the two lists and the packet slab.
private struct FlowQueues {
    let parameters: FQCoDelParameters
    let codelParameters: CoDelParameters
    // The slab: packets, and the next slot of the same flow (or of the free list); -1 ends a list.
    private var slots: ContiguousArray<Packet>
    private var slotNext: ContiguousArray<Int32>
    private var freeHead: Int32 = -1

    // Per flow.
    private var head: ContiguousArray<Int32>
    private var tail: ContiguousArray<Int32>
    private(set) var flowBytes: ContiguousArray<Int>
    private var deficit: ContiguousArray<Int>
    private var codel: ContiguousArray<CoDelState>
    /// The next flow on the same list; which list a flow is on (0 none, 1 new, 2 old).
    private var listNext: ContiguousArray<Int32>
    private var onList: ContiguousArray<UInt8>
    private var newList = (head: Int32(-1), tail: Int32(-1))
    private var oldList = (head: Int32(-1), tail: Int32(-1))

    private(set) var backlogPackets = 0
    private(set) var backlogBytes = 0
    private(set) var droppedOverLimit = 0
    private(set) var newFlowCount = 0

    init(_ parameters: FQCoDelParameters) {
        self.parameters = parameters
        codelParameters = parameters.codel
        let n = max(1, parameters.flows)
        head = ContiguousArray(repeating: -1, count: n)
        tail = ContiguousArray(repeating: -1, count: n)
        flowBytes = ContiguousArray(repeating: 0, count: n)
        deficit = ContiguousArray(repeating: 0, count: n)
        codel = ContiguousArray(repeating: CoDelState(), count: n)
        listNext = ContiguousArray(repeating: -1, count: n)
        onList = ContiguousArray(repeating: 0, count: n)
        slots = []
        slotNext = []
        grow(to: min(max(parameters.limit, 1) + 1, 1024))
    }

    func flowIndex(ofHash hash: UInt32) -> Int { Int((UInt64(hash) * UInt64(head.count)) >> 32) }

    mutating func enqueue(_ packet: Packet, now: Instant, sink: any DisciplineSink) -> Bool {
        let i = flowIndex(ofHash: packet.flowHash)
        push(packet, flow: i)
        if onList[i] == 0 {
            append(i, toNew: true)
            newFlowCount += 1
            deficit[i] = parameters.quantum
        }
        if backlogPackets <= parameters.limit && backlogBytes <= parameters.memoryLimit { return true }
        dropFromFattestFlow(now: now, sink: sink)
        return true
    }

    mutating func dequeue(now: Instant, sink: any DisciplineSink) -> Packet? {
        while true {
            let fromNew = newList.head >= 0
            let f = fromNew ? newList.head : oldList.head
            guard f >= 0 else { return nil }
            let i = Int(f)
            if deficit[i] <= 0 {
                deficit[i] += parameters.quantum
                removeHead(fromNew: fromNew)
                append(i, toNew: false)
                continue
            }
            // The flow's CoDel state as a local copy: its closures then reach the slab without
            // overlapping the access to `codel`.
            var state = codel[i]
            let p = state.dequeue(
                now: now, codelParameters, pop: { pop(flow: i) }, backlog: { backlogBytes },
                drop: { sink.discipline(dropped: $0, at: now) }, mark: { sink.discipline(marked: $0, at: now) })
            codel[i] = state
            guard let p else {
                // An empty flow: force a pass through the old list to prevent starvation.
                removeHead(fromNew: fromNew)
                if fromNew && oldList.head >= 0 { append(i, toNew: false) }
                continue
            }
            deficit[i] -= Int(p.size)
            return p
        }
    }

    mutating func flush(_ body: (Packet) -> Void) {
        for i in 0..<head.count {
            while let p = pop(flow: i) { body(p) }
            codel[i] = CoDelState()
            onList[i] = 0
            listNext[i] = -1
        }
        newList = (-1, -1)
        oldList = (-1, -1)
    }

    /// Linux's fq_codel_drop: the flow with the most bytes loses packets from its head until half
    /// of its bytes or `dropBatch` packets are gone.
    private mutating func dropFromFattestFlow(now: Instant, sink: any DisciplineSink) {
        var fattest = 0
        for i in 1..<flowBytes.count where flowBytes[i] > flowBytes[fattest] { fattest = i }
        let threshold = flowBytes[fattest] >> 1
        var dropped = 0, bytes = 0
        repeat {
            guard let p = pop(flow: fattest) else { break }
            bytes += Int(p.size)
            dropped += 1
            sink.discipline(dropped: p, at: now)
        } while dropped < parameters.dropBatch && bytes < threshold
        droppedOverLimit += dropped
    }

    // MARK: the slab and the lists

    private mutating func push(_ p: Packet, flow i: Int) {
        if freeHead < 0 { grow(to: slots.count * 2) }
        let s = freeHead
        freeHead = slotNext[Int(s)]
        slots[Int(s)] = p
        slotNext[Int(s)] = -1
        if tail[i] >= 0 { slotNext[Int(tail[i])] = s } else { head[i] = s }
        tail[i] = s
        flowBytes[i] += Int(p.size)
        backlogPackets += 1
        backlogBytes += Int(p.size)
    }

    private mutating func pop(flow i: Int) -> Packet? {
        let s = head[i]
        guard s >= 0 else { return nil }
        let p = slots[Int(s)]
        head[i] = slotNext[Int(s)]
        if head[i] < 0 { tail[i] = -1 }
        slotNext[Int(s)] = freeHead
        freeHead = s
        flowBytes[i] -= Int(p.size)
        backlogPackets -= 1
        backlogBytes -= Int(p.size)
        return p
    }

    private mutating func grow(to capacity: Int) {
        let old = slots.count
        guard capacity > old else { return }
        let filler = Packet(handle: -1, size: 0, arrival: Instant(nanoseconds: 0))
        slots.append(contentsOf: repeatElement(filler, count: capacity - old))
        slotNext.append(contentsOf: repeatElement(-1, count: capacity - old))
        for s in (old..<capacity).reversed() {
            slotNext[s] = freeHead
            freeHead = Int32(s)
        }
    }

    private mutating func append(_ i: Int, toNew: Bool) {
        listNext[i] = -1
        onList[i] = toNew ? 1 : 2
        if toNew {
            if newList.tail >= 0 { listNext[Int(newList.tail)] = Int32(i) } else { newList.head = Int32(i) }
            newList.tail = Int32(i)
        } else {
            if oldList.tail >= 0 { listNext[Int(oldList.tail)] = Int32(i) } else { oldList.head = Int32(i) }
            oldList.tail = Int32(i)
        }
    }

    private mutating func removeHead(fromNew: Bool) {
        if fromNew {
            let i = Int(newList.head)
            newList.head = listNext[i]
            if newList.head < 0 { newList.tail = -1 }
            onList[i] = 0
        } else {
            let i = Int(oldList.head)
            oldList.head = listNext[i]
            if oldList.head < 0 { oldList.tail = -1 }
            onList[i] = 0
        }
    }
}
