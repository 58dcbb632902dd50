package dev.shopkeeper.android.models

import dev.shopkeeper.android.core.JsonObject
import dev.shopkeeper.android.core.jsonOf

/** An RFC 9457 problem document, the body of every error answer (schema `Problem`). Switch on [code]. */
data class Problem(
    /** A URI naming the problem type. */
    val type: String,
    /** The HTTP status's reason phrase. */
    val title: String,
    /** The HTTP status code. */
    val status: Int,
    /** A human-readable explanation; never switch on it. */
    val detail: String,
    /** The stable, machine-readable code. */
    val code: String,
    /** The request id to quote when asking for help. */
    val requestId: String? = null,
    /** Field-level problems of invalid input. */
    val errors: List<FieldProblem>? = null
) {
    fun toJson() = jsonOf(
        "type" to type, "title" to title, "status" to status, "detail" to detail, "code" to code,
        "request_id" to requestId, "errors" to errors?.map { it.toJson() }
    )

    companion object {
        fun from(json: JsonObject) = Problem(
            type = json.string("type"), title = json.string("title"), status = json.int("status"),
            detail = json.string("detail"), code = json.string("code"), requestId = json.stringOrNull("request_id"),
            errors = json.listOrNull("errors", FieldProblem.Companion::from)
        )
    }
}

/** One invalid field of a request (schema `FieldProblem`). */
data class FieldProblem(
    /** JSON pointer to the field, or `?name` for a query parameter. */
    val pointer: String,
    /** What is wrong with it. */
    val detail: String
) {
    fun toJson() = jsonOf("pointer" to pointer, "detail" to detail)

    companion object {
        fun from(json: JsonObject) = FieldProblem(json.string("pointer"), json.string("detail"))
    }
}
