// Compile-time stub of the Play Billing Library 7 API (the classes and members PlayBillingDeviceStore uses), so that
// Clients/ShopkeeperAndroid/check type-checks it without the Android SDK. Never shipped: an app gets the real library
// from Google Maven (build.gradle.kts). Bodies throw; signatures follow developer.android.com.
package com.android.billingclient.api;

public final class ProductDetails {
    public String getProductId() { throw new UnsupportedOperationException("stub"); }
    public String getProductType() { throw new UnsupportedOperationException("stub"); }
    public String getName() { throw new UnsupportedOperationException("stub"); }
    public String getDescription() { throw new UnsupportedOperationException("stub"); }
    public OneTimePurchaseOfferDetails getOneTimePurchaseOfferDetails() { throw new UnsupportedOperationException("stub"); }
    public java.util.List<SubscriptionOfferDetails> getSubscriptionOfferDetails() { throw new UnsupportedOperationException("stub"); }

    public static final class OneTimePurchaseOfferDetails {
        public String getFormattedPrice() { throw new UnsupportedOperationException("stub"); }
        public long getPriceAmountMicros() { throw new UnsupportedOperationException("stub"); }
        public String getPriceCurrencyCode() { throw new UnsupportedOperationException("stub"); }
    }

    public static final class SubscriptionOfferDetails {
        public String getOfferToken() { throw new UnsupportedOperationException("stub"); }
        public String getBasePlanId() { throw new UnsupportedOperationException("stub"); }
        public String getOfferId() { throw new UnsupportedOperationException("stub"); }
        public PricingPhases getPricingPhases() { throw new UnsupportedOperationException("stub"); }
    }

    public static final class PricingPhases {
        public java.util.List<PricingPhase> getPricingPhaseList() { throw new UnsupportedOperationException("stub"); }
    }

    public static final class PricingPhase {
        public String getFormattedPrice() { throw new UnsupportedOperationException("stub"); }
        public long getPriceAmountMicros() { throw new UnsupportedOperationException("stub"); }
        public String getPriceCurrencyCode() { throw new UnsupportedOperationException("stub"); }
        public String getBillingPeriod() { throw new UnsupportedOperationException("stub"); }
        public int getBillingCycleCount() { throw new UnsupportedOperationException("stub"); }
        public int getRecurrenceMode() { throw new UnsupportedOperationException("stub"); }
    }
}
