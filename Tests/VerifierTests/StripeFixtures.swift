import Foundation

/// Stripe's own example objects (`openapi/fixtures3.json` of Stripe's OpenAPI repository, API version
/// `StripeAPIVersion.current`), whole and unchanged: what Stripe's API answers, every field included. Tests change
/// the few fields they care about with ``StripeFixtures/object(_:changing:)``.
enum StripeFixtures {
    /// A `checkout.session`.
    static let checkoutSession = #"""
        {"adaptive_pricing":{"enabled":true},"after_expiration":{"recovery":{"allow_promotion_codes":true,"enabled":tr\#
        ue,"expires_at":null,"url":null}},"allow_promotion_codes":null,"amount_subtotal":null,"amount_total":null,"aut\#
        omatic_tax":{"enabled":false,"liability":{"type":"account"},"provider":null,"status":null},"billing_address_co\#
        llection":null,"cancel_url":"https://example.com/cancel","client_reference_id":null,"client_secret":null,"coll\#
        ected_information":{"business_name":null,"individual_name":null,"shipping_details":{"address":{"city":null,"co\#
        untry":null,"line1":null,"line2":null,"postal_code":null,"state":null},"name":"name"}},"consent":{"promotions"\#
        :null,"terms_of_service":null},"consent_collection":{"payment_method_reuse_agreement":{"position":"hidden"},"p\#
        romotions":null,"terms_of_service":null},"created":1234567890,"currency":null,"currency_conversion":{"amount_s\#
        ubtotal":1555417355,"amount_total":1117121693,"fx_rate":"291452898","source_currency":"usd"},"custom_fields":[\#
        ],"custom_text":{"after_submit":{"message":"message"},"shipping_address":{"message":"message"},"submit":{"mess\#
        age":"message"},"terms_of_service_acceptance":{"message":"message"}},"customer":null,"customer_account":null,"\#
        customer_creation":null,"customer_details":{"address":{"city":null,"country":null,"line1":null,"line2":null,"p\#
        ostal_code":null,"state":null},"business_name":null,"email":"example@example.com","individual_name":null,"name\#
        ":null,"phone":null,"tax_exempt":"none","tax_ids":null},"customer_email":null,"discounts":null,"expires_at":12\#
        34567890,"id":"cs_test_a1YS1URlnyQCN5fUUduORoQ7Pw41PJqDWkIVQCpJPqkfIhd6tVY8XB1OLY","integration_identifier":nu\#
        ll,"invoice":null,"invoice_creation":{"enabled":true,"invoice_data":{"account_tax_ids":null,"custom_fields":nu\#
        ll,"description":null,"footer":null,"issuer":{"type":"account"},"metadata":null,"rendering_options":{"amount_t\#
        ax_display":null,"template":null}}},"livemode":false,"locale":null,"managed_payments":{"enabled":true},"metada\#
        ta":{},"mode":"payment","object":"checkout.session","origin_context":null,"payment_intent":"pi_1PgafyB7WZ01zgk\#
        WSjxsAJo3","payment_link":null,"payment_method_collection":null,"payment_method_configuration_details":{"id":"\#
        obj_123","parent":null},"payment_method_options":{},"payment_method_types":["card"],"payment_status":"unpaid",\#
        "permissions":{"update_shipping_details":null},"phone_number_collection":{"enabled":false},"recovered_from":nu\#
        ll,"saved_payment_method_options":{"allow_redisplay_filters":null,"payment_method_remove":null,"payment_method\#
        _save":null},"setup_intent":null,"shipping_address_collection":{"allowed_countries":["SC"]},"shipping_cost":{"\#
        amount_subtotal":1555417355,"amount_tax":1424534716,"amount_total":1117121693,"shipping_rate":null},"shipping_\#
        options":[],"status":"open","submit_type":null,"subscription":null,"success_url":"https://example.com/success"\#
        ,"total_details":{"amount_discount":406046392,"amount_shipping":null,"amount_tax":1424534716},"ui_mode":null,"\#
        url":"https://checkout.stripe.com/pay/c/cs_test_a1YS1URlnyQCN5fUUduORoQ7Pw41PJqDWkIVQCpJPqkfIhd6tVY8XB1OLY","w\#
        allet_options":{}}
        """#
    /// A `subscription`.
    static let subscription = #"""
        {"application":null,"application_fee_percent":null,"automatic_tax":{"disabled_reason":null,"enabled":false,"li\#
        ability":{"type":"account"}},"billing_cycle_anchor":1234567890,"billing_cycle_anchor_config":{"day_of_month":1\#
        361669285,"hour":null,"minute":null,"month":null,"second":null},"billing_mode":{"flexible":{},"type":"classic"\#
        },"billing_schedules":[{"applies_to":null,"bill_until":{"computed_timestamp":2082605468,"duration":{"interval"\#
        :"month","interval_count":null},"timestamp":null,"type":"duration"},"key":"key"}],"billing_thresholds":{"amoun\#
        t_gte":null,"reset_billing_cycle_anchor":null},"cancel_at":1234567890,"cancel_at_period_end":true,"canceled_at\#
        ":1234567890,"cancellation_details":{"comment":null,"feedback":null,"reason":null},"collection_method":"charge\#
        _automatically","created":1234567890,"currency":"usd","customer":"cus_QXg1o8vcGmoR32","customer_account":null,\#
        "days_until_due":null,"default_payment_method":null,"default_source":null,"default_tax_rates":[],"description"\#
        :null,"discounts":[],"ended_at":1234567890,"id":"sub_1Pgc6rB7WZ01zgkWNy0Cn5nw","invoice_settings":{"account_ta\#
        x_ids":null,"custom_fields":null,"description":null,"footer":null,"issuer":{"type":"self"}},"items":{"data":[{\#
        "billing_thresholds":{"usage_gte":null},"created":1721954054,"current_period_end":976287773,"current_period_st\#
        art":1896570518,"discounts":[],"id":"si_QXhVnC2h0Jczwc","metadata":{},"object":"subscription_item","plan":{"ac\#
        tive":true,"amount":null,"amount_decimal":null,"billing_scheme":"tiered","created":1028554472,"currency":"curr\#
        ency","id":"obj_123","interval":"month","interval_count":797691627,"livemode":true,"metadata":null,"meter":nul\#
        l,"nickname":null,"object":"plan","product":null,"tiers_mode":null,"transform_usage":{"divide_by":1592560163,"\#
        round":"down"},"trial_period_days":null,"usage_type":"licensed"},"price":{"active":true,"billing_scheme":"per_\#
        unit","created":1721948530,"currency":"usd","custom_unit_amount":{"maximum":null,"minimum":null,"preset":null}\#
        ,"id":"price_1PgafmB7WZ01zgkW6dKueIc5","livemode":false,"lookup_key":null,"metadata":{},"nickname":null,"objec\#
        t":"price","product":"prod_QXg1hqf4jFNsqG","recurring":{"interval":"month","interval_count":1,"meter":null,"tr\#
        ial_period_days":null,"usage_type":"licensed"},"tax_behavior":"unspecified","tiers_mode":null,"transform_quant\#
        ity":{"divide_by":1592560163,"round":"down"},"type":"recurring","unit_amount":2000,"unit_amount_decimal":"2000\#
        "},"quantity":1,"subscription":"sub_1Pgc6rB7WZ01zgkWNy0Cn5nw","tax_rates":[]}],"has_more":false,"object":"list\#
        ","url":"/v1/subscription_items?subscription=sub_1Pgc6rB7WZ01zgkWNy0Cn5nw"},"latest_invoice":null,"livemode":f\#
        alse,"managed_payments":{"enabled":true},"metadata":{},"next_pending_invoice_item_invoice":1234567890,"object"\#
        :"subscription","on_behalf_of":null,"pause_collection":{"behavior":"mark_uncollectible","resumes_at":null},"pa\#
        yment_settings":{"payment_method_options":{"acss_debit":{},"bancontact":{"preferred_language":"fr"},"card":{"n\#
        etwork":null,"request_three_d_secure":null},"customer_balance":{"funding_type":null},"konbini":{},"payto":{},"\#
        pix":{},"sepa_debit":{},"upi":{},"us_bank_account":{}},"payment_method_types":null,"save_default_payment_metho\#
        d":null},"pending_invoice_item_interval":{"interval":"month","interval_count":797691627},"pending_setup_intent\#
        ":null,"pending_update":{"billing_cycle_anchor":null,"discount":{"checkout_session":null,"customer":null,"cust\#
        omer_account":null,"end":null,"id":"obj_123","invoice":null,"invoice_item":null,"object":"discount","promotion\#
        _code":null,"source":{"coupon":null,"type":"coupon"},"start":109757538,"subscription":null,"subscription_item"\#
        :null},"discounts":[],"expires_at":833811170,"metadata":null,"subscription_items":null,"trial_end":null,"trial\#
        _from_plan":null},"schedule":null,"start_date":1234567890,"status":"active","test_clock":null,"transfer_data":\#
        {"amount_percent":null,"destination":{"id":"obj_123","object":"account"}},"trial_end":1234567890,"trial_settin\#
        gs":{"end_behavior":{"missing_payment_method":"create_invoice"}},"trial_start":1234567890}
        """#
    /// A `invoice`.
    static let invoice = #"""
        {"account_country":"US","account_name":null,"account_tax_ids":null,"amount_due":1000,"amount_overpaid":1493008\#
        25,"amount_paid":0,"amount_remaining":1000,"amount_shipping":0,"application":null,"attempt_count":0,"attempted\#
        ":false,"auto_advance":false,"automatic_tax":{"disabled_reason":null,"enabled":false,"liability":{"type":"acco\#
        unt"},"provider":null,"status":null},"automatically_finalizes_at":null,"billing_reason":"manual","collection_m\#
        ethod":"charge_automatically","created":1234567890,"currency":"usd","custom_fields":null,"customer":"cus_QXg1o\#
        8vcGmoR32","customer_account":null,"customer_address":{"city":null,"country":null,"line1":null,"line2":null,"p\#
        ostal_code":null,"state":null},"customer_email":null,"customer_name":null,"customer_phone":null,"customer_ship\#
        ping":{},"customer_tax_exempt":"none","customer_tax_ids":[],"default_payment_method":null,"default_source":nul\#
        l,"default_tax_rates":[],"description":null,"discounts":[],"due_date":1234567890,"effective_at":1234567890,"en\#
        ding_balance":null,"footer":null,"from_invoice":{"action":"action","invoice":"invoice"},"hosted_invoice_url":n\#
        ull,"id":"in_1Pgc6tB7WZ01zgkWu9fdqL6I","invoice_pdf":null,"issuer":{"type":"self"},"last_finalization_error":{\#
        "type":"idempotency_error"},"latest_revision":null,"lines":{"data":[{"amount":1000,"currency":"usd","descripti\#
        on":"My First Invoice Item (created for API docs)","discount_amounts":[],"discountable":true,"discounts":[],"i\#
        d":"il_1Pgc6sB7WZ01zgkWFnxLrLCq","invoice":"in_1Pgc6tB7WZ01zgkWu9fdqL6I","livemode":false,"metadata":{},"objec\#
        t":"line_item","parent":{"invoice_item_details":{"invoice_item":"invoice_item","proration":true,"proration_det\#
        ails":{"credited_items":{"invoice":"invoice","invoice_line_items":["invoice_line_items"]}},"subscription":null\#
        },"subscription_item_details":{"invoice_item":null,"proration":true,"proration_details":{"credited_items":{"in\#
        voice":"invoice","invoice_line_items":["invoice_line_items"]}},"subscription":"subscription","subscription_ite\#
        m":"subscription_item"},"type":"invoice_item_details"},"period":{"end":1721954054,"start":1721954054},"pretax_\#
        credit_amounts":null,"pricing":{"type":"price_details","unit_amount_decimal":null},"quantity":1,"quantity_deci\#
        mal":null,"subscription":null,"subtotal":2060319484,"taxes":null}],"has_more":false,"object":"list","url":"/v1\#
        /invoices/in_1Pgc6tB7WZ01zgkWu9fdqL6I/lines"},"livemode":false,"metadata":{},"next_payment_attempt":1234567890\#
        ,"number":null,"object":"invoice","on_behalf_of":null,"parent":{"quote_details":{"quote":"quote"},"subscriptio\#
        n_details":{"metadata":null,"subscription":"subscription"},"type":"quote_details"},"payment_settings":{"defaul\#
        t_mandate":null,"payment_method_options":{"acss_debit":{},"bancontact":{"preferred_language":"fr"},"card":{"re\#
        quest_three_d_secure":null},"customer_balance":{"funding_type":null},"konbini":{},"payto":{},"pix":{"amount_in\#
        cludes_iof":null},"sepa_debit":{},"upi":{},"us_bank_account":{}},"payment_method_types":null},"period_end":123\#
        4567890,"period_start":1234567890,"post_payment_credit_notes_amount":0,"pre_payment_credit_notes_amount":0,"re\#
        ceipt_number":null,"rendering":{"amount_tax_display":null,"pdf":{"page_size":null},"template":null,"template_v\#
        ersion":null},"shipping_cost":{"amount_subtotal":1555417355,"amount_tax":1424534716,"amount_total":1117121693,\#
        "shipping_rate":null},"shipping_details":{},"starting_balance":0,"statement_descriptor":null,"status":"draft",\#
        "status_transitions":{"finalized_at":null,"marked_uncollectible_at":null,"paid_at":null,"voided_at":null},"sub\#
        scription":null,"subtotal":1000,"subtotal_excluding_tax":1000,"test_clock":null,"total":1000,"total_discount_a\#
        mounts":[],"total_excluding_tax":1000,"total_pretax_credit_amounts":null,"total_taxes":null,"webhooks_delivere\#
        d_at":1234567890}
        """#
    /// A `invoice_payment`.
    static let invoicePayment = #"""
        {"amount_paid":null,"amount_requested":1112626247,"created":1028554472,"currency":"currency","id":"obj_123","i\#
        nvoice":"invoice","is_default":true,"livemode":true,"object":"invoice_payment","payment":{"type":"payment_inte\#
        nt"},"status":"status","status_transitions":{"canceled_at":null,"paid_at":null}}
        """#
    /// A `charge`.
    static let charge = #"""
        {"amount":100,"amount_captured":0,"amount_refunded":0,"application":null,"application_fee":null,"application_f\#
        ee_amount":null,"balance_transaction":"txn_1PgaxNB7WZ01zgkWEV3TLf40","billing_details":{"address":{"city":null\#
        ,"country":null,"line1":null,"line2":null,"postal_code":null,"state":null},"email":null,"name":"Jenny Rosen","\#
        phone":null,"tax_id":null},"calculated_statement_descriptor":null,"captured":false,"created":1234567890,"curre\#
        ncy":"usd","customer":null,"description":"My First Test Charge (created for API docs)","disputed":false,"failu\#
        re_balance_transaction":null,"failure_code":null,"failure_message":null,"fraud_details":{},"id":"ch_1PgafuB7WZ\#
        01zgkWXYmPNZs8","livemode":false,"metadata":{},"object":"charge","on_behalf_of":null,"outcome":{"advice_code":\#
        null,"network_advice_code":null,"network_decline_code":null,"network_status":null,"reason":null,"seller_messag\#
        e":null,"type":"type"},"paid":true,"payment_intent":null,"payment_method":"card_1PgaftB7WZ01zgkWm3waTcFp","pay\#
        ment_method_details":{"card":{"amount_authorized":null,"authorization_code":null,"brand":"visa","checks":{"add\#
        ress_line1_check":null,"address_postal_code_check":null,"cvc_check":"pass"},"country":"US","exp_month":8,"exp_\#
        year":2030,"extended_authorization":{"status":"disabled"},"fingerprint":"AOB934RVNwzk6xtn","funding":"credit",\#
        "incremental_authorization":{"status":"unavailable"},"installments":{"plan":{"count":null,"interval":null,"typ\#
        e":"fixed_count"}},"last4":"4242","mandate":null,"multicapture":{"status":"unavailable"},"network":"visa","net\#
        work_token":{"used":false},"network_transaction_id":null,"overcapture":{"maximum_amount_capturable":100,"statu\#
        s":"unavailable"},"regulated_status":null,"three_d_secure":{"authentication_flow":null,"electronic_commerce_in\#
        dicator":null,"exemption_indicator":null,"result":null,"result_reason":null,"transaction_id":null,"version":nu\#
        ll},"transaction_link_id":null,"wallet":{"dynamic_last4":null,"type":"link"}},"type":"card"},"receipt_email":n\#
        ull,"receipt_number":null,"receipt_url":"https://sangeekp-15t6ai--manage-mydev.dev.stripe.me/receipts/payment/\#
        CAcaFwoVYWNjdF8xUGdhZlRCN1daMDF6Z2tXKI_ei7UGMgZv2S_KfiY6LCJrxC7awazgQA9I88krZKw5uuCkZ5Nup2tomEtAbSpdfzjVZHO3ZY\#
        P5KFZP","refunded":false,"refunds":{"data":[],"has_more":false,"object":"list","url":"/v1/charges/ch_1PgafuB7W\#
        Z01zgkWXYmPNZs8/refunds"},"review":null,"shipping":{},"source":{"allow_redisplay":null,"amount":null,"client_s\#
        ecret":"client_secret","created":1028554472,"currency":null,"flow":"flow","id":"obj_123","livemode":true,"meta\#
        data":null,"object":"source","owner":{"address":{"city":null,"country":null,"line1":null,"line2":null,"postal_\#
        code":null,"state":null},"email":null,"name":null,"phone":null,"verified_address":{"city":null,"country":null,\#
        "line1":null,"line2":null,"postal_code":null,"state":null},"verified_email":null,"verified_name":null,"verifie\#
        d_phone":null},"statement_descriptor":null,"status":"status","type":"ach_credit_transfer","usage":null},"sourc\#
        e_transfer":null,"statement_descriptor":null,"statement_descriptor_suffix":null,"status":"succeeded","transfer\#
        _data":{"amount":null,"destination":{"id":"obj_123","object":"account"}},"transfer_group":null}
        """#
    /// A `dispute`.
    static let dispute = #"""
        {"amount":1000,"balance_transactions":[],"charge":"ch_1PgafuB7WZ01zgkWXYmPNZs8","created":1234567890,"currency\#
        ":"usd","enhanced_eligibility_types":["visa_compelling_evidence_3"],"evidence":{"access_activity_log":null,"bi\#
        lling_address":null,"cancellation_policy":null,"cancellation_policy_disclosure":null,"cancellation_rebuttal":n\#
        ull,"customer_communication":null,"customer_email_address":null,"customer_name":null,"customer_purchase_ip":nu\#
        ll,"customer_signature":null,"duplicate_charge_documentation":null,"duplicate_charge_explanation":null,"duplic\#
        ate_charge_id":null,"enhanced_evidence":{},"product_description":null,"receipt":null,"refund_policy":null,"ref\#
        und_policy_disclosure":null,"refund_refusal_explanation":null,"service_date":null,"service_documentation":null\#
        ,"shipping_address":null,"shipping_carrier":null,"shipping_date":null,"shipping_documentation":null,"shipping_\#
        tracking_number":null,"uncategorized_file":null,"uncategorized_text":null},"evidence_details":{"due_by":172367\#
        9999,"enhanced_eligibility":{},"has_evidence":false,"past_due":false,"submission_count":0},"id":"dp_1Pgc71B7WZ\#
        01zgkWMevJiAUx","is_charge_refundable":true,"livemode":false,"metadata":{},"object":"dispute","payment_intent"\#
        :null,"payment_method_details":{"card":{"brand":"visa","case_type":"inquiry","network":"visa","network_reason_\#
        code":"10.4"},"type":"card"},"reason":"general","status":"warning_needs_response"}
        """#
    /// A `event`.
    static let event = #"""
        {"api_version":null,"created":1234567890,"data":{"object":{"active":true,"aggregate_usage":null,"amount":2000,\#
        "amount_decimal":"2000","billing_scheme":"per_unit","created":1721948530,"currency":"usd","id":"price_1PgafmB7\#
        WZ01zgkW6dKueIc5","interval":"month","interval_count":1,"livemode":false,"metadata":{},"meter":null,"nickname"\#
        :null,"object":"plan","product":"prod_QXg1hqf4jFNsqG","tiers_mode":null,"transform_usage":null,"trial_period_d\#
        ays":null,"usage_type":"licensed"}},"id":"evt_1Pgc76B7WZ01zgkWwyRHS12y","livemode":false,"object":"event","pen\#
        ding_webhooks":0,"request":{"id":null,"idempotency_key":null},"type":"plan.created"}
        """#
    /// A `payment_intent`.
    static let paymentIntent = #"""
        {"amount":1099,"amount_capturable":0,"amount_details":{"tip":{}},"amount_received":0,"application":null,"appli\#
        cation_fee_amount":null,"automatic_payment_methods":{"enabled":true},"canceled_at":1234567890,"cancellation_re\#
        ason":null,"capture_method":"automatic","client_secret":"pi_1PgafyB7WZ01zgkWSjxsAJo3_secret_Dm43xiq1k0ywrRRjDo\#
        i8y1gkM","confirmation_method":"automatic","created":1234567890,"currency":"usd","customer":null,"customer_acc\#
        ount":null,"description":null,"excluded_payment_method_types":null,"id":"pi_1PgafyB7WZ01zgkWSjxsAJo3","last_pa\#
        yment_error":{"type":"idempotency_error"},"latest_charge":null,"livemode":false,"managed_payments":{"enabled":\#
        true},"metadata":{},"next_action":{"type":"type"},"object":"payment_intent","on_behalf_of":null,"payment_metho\#
        d":null,"payment_method_configuration_details":{"id":"obj_123","parent":null},"payment_method_options":{},"pay\#
        ment_method_types":["card"],"processing":{"type":"card"},"receipt_email":null,"review":null,"setup_future_usag\#
        e":null,"shipping":{},"source":null,"statement_descriptor":null,"statement_descriptor_suffix":null,"status":"r\#
        equires_payment_method","transfer_data":{"destination":{"id":"obj_123","object":"account"}},"transfer_group":n\#
        ull}
        """#

    /// A `billing_portal.session`.
    static let portalSession = #"""
        {"configuration":"bpc_1Pgc7HB7WZ01zgkWxH2EPWRX","created":1234567890,"customer":"cus_QXg1o8vcGmoR32","customer\#
        _account":null,"flow":{"after_completion":{"hosted_confirmation":{"custom_message":null},"redirect":{"return_u\#
        rl":"return_url"},"type":"hosted_confirmation"},"subscription_cancel":{"retention":{"coupon_offer":{"coupon":"\#
        coupon"},"type":"coupon_offer"},"subscription":"subscription"},"subscription_update":{"subscription":"subscrip\#
        tion"},"subscription_update_confirm":{"discounts":null,"items":[{"id":null,"price":null}],"subscription":"subs\#
        cription"},"type":"subscription_update"},"id":"bps_1Pgc7HB7WZ01zgkWNs8s9Auh","livemode":true,"locale":null,"ob\#
        ject":"billing_portal.session","on_behalf_of":null,"return_url":"https://example.com/account","url":"https://s\#
        angeekp-15t6ai--customer_portal-mydev.dev.stripe.me/session/{SESSION_SECRET}"}
        """#

    /// `json` decoded, with each key path (`"items.data.0.price.id"`: members and list indexes) set to its value
    /// (`NSNull()` for `null`), encoded again.
    static func object(_ json: String, changing changes: [String: Any] = [:]) throws -> Data {
        var object = try JSONSerialization.jsonObject(with: Data(json.utf8))
        for (path, value) in changes.sorted(by: { $0.key < $1.key }) {
            object = set(value, at: path.split(separator: ".").map(String.init)[...], in: object)
        }
        return try JSONSerialization.data(withJSONObject: object)
    }

    private static func set(_ value: Any, at path: ArraySlice<String>, in container: Any) -> Any {
        guard let key = path.first else { return value }
        if var list = container as? [Any], let index = Int(key), list.indices.contains(index) {
            list[index] = set(value, at: path.dropFirst(), in: list[index])
            return list
        }
        var members = container as? [String: Any] ?? [:]
        members[key] = set(value, at: path.dropFirst(), in: members[key] ?? [String: Any]())
        return members
    }
}
