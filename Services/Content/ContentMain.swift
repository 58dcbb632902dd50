import ShopkeeperHTTP

@main
struct ContentMain {
    static func main() async {
        await ServiceMain.start(service: "content") { environment, metrics in
            try await buildApplication(settings: try ContentSettings.read(from: environment), metrics: metrics)
        }
    }
}
