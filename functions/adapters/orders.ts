/**
 * The order store (core's OrderStore) on the single table, by what each part writes: the creation transaction
 * (order-creation.ts), status and field changes (order-transitions.ts), the audit's markers (order-markers.ts) and
 * the reads and listing (order-listing.ts). Quotes are apart (quotes.ts).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { OrderStore } from '../core/ports.ts';
import { OrderCreations } from './order-creation.ts';
import { OrderReads } from './order-listing.ts';
import { OrderMarkers } from './order-markers.ts';
import { OrderTransitions } from './order-transitions.ts';
import { realSleep, type Sleep } from '../core/retry.ts';

export class Orders implements OrderStore {
  private readonly creations: OrderCreations;
  private readonly transitions: OrderTransitions;
  private readonly markers: OrderMarkers;
  private readonly reads: OrderReads;

  /** `sleep`: how a transition waits between its retries (the real timer unless a test injects another). */
  constructor(ddb: DynamoDBDocumentClient, tableName: string, sleep: Sleep = realSleep) {
    this.creations = new OrderCreations(ddb, tableName);
    this.transitions = new OrderTransitions(ddb, tableName, sleep);
    this.markers = new OrderMarkers(ddb, tableName);
    this.reads = new OrderReads(ddb, tableName);
  }

  create: OrderStore['create'] = (c) => this.creations.create(c);
  idempotency: OrderStore['idempotency'] = (userId, keyHash, now) => this.creations.idempotency(userId, keyHash, now);
  transition: OrderStore['transition'] = (t) => this.transitions.transition(t);
  patch: OrderStore['patch'] = (orderId, p, now) => this.transitions.patch(orderId, p, now);
  unstarted: OrderStore['unstarted'] = (before, limit, first) => this.markers.unstarted(before, limit, first);
  started: OrderStore['started'] = (order) => this.markers.started(order);
  deadlinesDue: OrderStore['deadlinesDue'] = (now, limit, first) => this.markers.deadlinesDue(now, limit, first);
  dropDeadline: OrderStore['dropDeadline'] = (order) => this.markers.dropDeadline(order);
  dropOpen: OrderStore['dropOpen'] = (order) => this.markers.dropOpen(order);
  openPage: OrderStore['openPage'] = (before, from, limit) => this.markers.openPage(before, from, limit);
  get: OrderStore['get'] = (orderId) => this.reads.get(orderId);
  ofUser: OrderStore['ofUser'] = (userId, range) => this.reads.ofUser(userId, range);
  /** The events recorded for an order, oldest first. */
  events = (orderId: string) => this.reads.events(orderId);
  idsOfUser: OrderStore['idsOfUser'] = (userId) => this.reads.idsOfUser(userId);
  delete: OrderStore['delete'] = (orderId) => this.reads.delete(orderId);
}
