import Hummingbird
import NIOCore

extension ReportTable {
    /// The answer in the requested format: `application/json`, or `text/csv` as an attachment named after the report
    /// and its range (`sales-2025-01-01-2025-01-31.csv`). Never cached: the figures change with every purchase.
    package func response() -> Response {
        let body: String
        var headers: HTTPFields = [.cacheControl: "no-store"]
        switch request.format {
        case .json:
            body = json()
            headers[.contentType] = "application/json; charset=utf-8"
        case .csv:
            body = csv()
            headers[.contentType] = "text/csv; charset=utf-8; header=present"
            headers[.contentDisposition] = "attachment; filename=\"\(report)-\(request.from)-\(request.to).csv\""
        }
        headers[.contentLength] = String(body.utf8.count)
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
