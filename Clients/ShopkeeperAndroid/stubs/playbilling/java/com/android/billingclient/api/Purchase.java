// Compile-time stub of the Play Billing Library 7 API (the classes and members PlayBillingDeviceStore uses), so that
// Clients/ShopkeeperAndroid/check type-checks it without the Android SDK. Never shipped: an app gets the real library
// from Google Maven (build.gradle.kts). Bodies throw; signatures follow developer.android.com.
package com.android.billingclient.api;

public class Purchase {
    public @interface PurchaseState {
        int UNSPECIFIED_STATE = 0;
        int PURCHASED = 1;
        int PENDING = 2;
    }

    public int getPurchaseState() { throw new UnsupportedOperationException("stub"); }
    public String getPurchaseToken() { throw new UnsupportedOperationException("stub"); }
    public String getOrderId() { throw new UnsupportedOperationException("stub"); }
    public java.util.List<String> getProducts() { throw new UnsupportedOperationException("stub"); }
    public boolean isAcknowledged() { throw new UnsupportedOperationException("stub"); }
    public int getQuantity() { throw new UnsupportedOperationException("stub"); }
    public AccountIdentifiers getAccountIdentifiers() { throw new UnsupportedOperationException("stub"); }
}
