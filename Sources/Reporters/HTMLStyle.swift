/// The report's stylesheet: inline, system fonts only, prints cleanly.
enum HTMLStyle {
    static let css = """
        :root { --ink: #24292f; --muted: #57606a; --line: #d0d7de; --soft: #f6f8fa; --better: #1a7f37; --worse: \
        #cf222e; }
        * { box-sizing: border-box; }
        body { margin: 0; background: #eef1f4; color: var(--ink);
          font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
        main { max-width: 1180px; margin: 0 auto; padding: 24px 20px 48px; }
        header h1 { font-size: 24px; margin: 0 0 4px; }
        header .meta { color: var(--muted); }
        section.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; \
        margin: 16px 0; }
        h2 { font-size: 18px; margin: 0 0 10px; }
        h3 { font-size: 15px; margin: 18px 0 6px; }
        .caption, .note-text { color: var(--muted); font-size: 12.5px; margin: 2px 0 8px; }
        .grid { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 8px 24px; }
        .grid > div { min-width: 0; }
        dl.setup { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
        dl.setup dt { color: var(--muted); }
        dl.setup dd { margin: 0; }
        ul.findings { margin: 0; padding-left: 18px; }
        ul.findings li { margin: 3px 0; }
        .chip { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600; color: \
        #fff; }
        .chip.better { background: var(--better); } .chip.worse { background: var(--worse); } .chip.neutral { \
        background: #6e7781; }
        .chip.ok { background: var(--better); } .chip.warn { background: #bf8700; }
        .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; \
        vertical-align: baseline; }
        .table-wrap { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 12.5px; margin: 6px 0; }
        th, td { border-bottom: 1px solid var(--line); padding: 4px 7px; text-align: left; vertical-align: top; }
        th { background: var(--soft); font-weight: 600; }
        td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        tr.metric-start td { border-top: 1px solid #afb8c1; }
        td.verdict { white-space: nowrap; }
        td.better { color: var(--better); font-weight: 600; } td.worse { color: var(--worse); font-weight: 600; }
        td.error { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; word-break: \
        break-word; }
        details { margin: 6px 0; }
        summary { cursor: pointer; font-weight: 600; }
        nav.toc a { margin-right: 14px; }
        svg.chart { max-width: 100%; height: auto; display: block; }
        svg.chart text { font: 12px system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; fill: var(--ink); }
        svg.chart text.label { font-weight: 600; }
        svg.chart text.small { font-weight: 400; }
        svg.chart text.value { font-weight: 600; }
        svg.chart text.tick { fill: var(--muted); font-size: 11px; }
        svg.chart text.note { fill: var(--muted); font-size: 11px; }
        svg.chart text.proto { fill: #fff; font-size: 11px; font-weight: 600; }
        svg.chart text.proto.unknown { font-weight: 400; }
        svg.chart text.warn { fill: var(--worse); font-size: 11px; font-weight: 600; }
        footer { color: var(--muted); font-size: 12px; margin-top: 24px; }
        @media print { body { background: #fff; } section.card { break-inside: avoid; border: none; } }
        """
}

extension HTMLStyle {
    /// One self-contained page: the shared style inline, `title` escaped, `body` as given.
    static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTML.escape(title))</title>
        <style>
        \(HTMLStyle.css)
        </style>
        </head>
        <body>
        <main>
        \(body)</main>
        </body>
        </html>

        """
    }
}
