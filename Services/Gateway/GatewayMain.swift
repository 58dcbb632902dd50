@main struct GatewayMain { static func main() {} }
