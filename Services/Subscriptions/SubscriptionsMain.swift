import ShopkeeperHTTP

@main
struct SubscriptionsMain {
    static func main() async {
        await ServiceMain.start(service: "subscriptions") { environment, metrics in
            try await buildApplication(settings: try SubscriptionsSettings.read(from: environment), metrics: metrics)
        }
    }
}
