/**
 * The contract's types, named once. Everything in src/ takes its types from here, and
 * this file takes them from generated/, so an edit to openapi.yaml reaches every user
 * through the compiler.
 */
import type { components, operations, paths } from '../../generated/openapi';

export type { components, operations, paths };

type Schemas = components['schemas'];

export type Event = Schemas['Event'];
export type EventKind = Event['kind'];
export type EventOfKind<K extends EventKind> = Extract<Event, { kind: K }>;
export type EventPage = Schemas['EventPage'];
export type EventSource = Schemas['EventSource'];
export type EventSortOrder = Schemas['EventSortOrder'];
export type TextContent = Schemas['TextContent'];
export type ImageContent = Schemas['ImageContent'];
export type MessageToolCall = Schemas['MessageToolCall'];
export type CriticResult = Schemas['CriticResult'];
export type SecurityRisk = Schemas['SecurityRisk'];
export type AnyThinkingBlock = Schemas['AnyThinkingBlock'];
export type ReasoningItemModel = Schemas['ReasoningItemModel'];
export type Message = Schemas['Message'];
export type Action = Schemas['Action'];
export type Observation = Schemas['Observation'];
export type ToolDefinition = Schemas['ToolDefinition'];
export type ValidationError = Schemas['ValidationError'];
export type HTTPValidationError = Schemas['HTTPValidationError'];
export type NotFoundError = Schemas['NotFoundError'];
export type StoredConversation = Schemas['StoredConversation'];
export type StoredConversationList = Schemas['StoredConversationList'];
export type StoredEventPage = Schemas['StoredEventPage'];
export type StoredEventHit = Schemas['StoredEventHit'];

export type UnauthorizedError = Schemas['UnauthorizedError'];
export type InternalServerError = Schemas['InternalServerError'];
export type ServiceUnavailableError = Schemas['ServiceUnavailableError'];

/** The name of an operation of the contract. */
export type OperationId = keyof operations;

export type SearchOperation = operations['searchConversationEvents'];
/** Query parameters of the search operation, as the contract declares them. */
export type SearchQuery = NonNullable<SearchOperation['parameters']['query']>;
export type SearchPath = SearchOperation['parameters']['path'];
export const SEARCH_PATH = '/api/conversations/{conversation_id}/events/search' satisfies keyof paths;

export type CountOperation = operations['countConversationEvents'];
/** Query parameters of the count operation: the search's filters. */
export type CountQuery = NonNullable<CountOperation['parameters']['query']>;

/** Query parameters of the search across stored conversations (this server's own operation). */
export type StoredEventsSearchQuery = NonNullable<operations['searchStoredEvents']['parameters']['query']>;
/** Query parameters of its count: the filters. */
export type StoredEventsCountQuery = NonNullable<operations['countStoredEvents']['parameters']['query']>;
/** The forms an export takes. */
export type ExportFormat = NonNullable<NonNullable<operations['exportStoredConversation']['parameters']['query']>['format']>;
export type ConversationInfo = Schemas['ConversationInfo'];
export type ConversationPage = Schemas['ConversationPage'];
export type ConversationExecutionStatus = Schemas['ConversationExecutionStatus'];
export type ConversationSortOrder = Schemas['ConversationSortOrder'];
