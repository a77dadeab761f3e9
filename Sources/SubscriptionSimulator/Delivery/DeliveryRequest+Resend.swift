extension DeliveryRequest {
    /// One more attempt of a notification already given to a delivery, asked for by hand (`simctl serve`'s
    /// `POST /simctl/v1/notifications/{notificationUUID}/resend`, issue 48): outside Apple's retry schedule, so the
    /// delivery never hands it out; the caller makes it through its transport and keeps its outcome.
    public static func resend(of item: DeliveryItem, index: Int, attempt: Int, at instant: Instant) -> DeliveryRequest {
        DeliveryRequest(index: index, item: item, attempt: attempt, instant: instant, isDuplicate: false)
    }
}
