// The program behind memcity's bundled demo trace (scripts/record-demo records it).
//
// A small web shop: two worker threads serve requests against the H2 database (libh2-java) through
// JDBC. Each request reads a product (through a bounded LRU cache), stores an order in H2 and
// renders a JSON response. The bug: every order and its response are also appended to a
// per-customer audit history held by a static map and never trimmed, so the heap grows steadily while everything else
// (responses, JDBC objects, H2's own pages: old orders are archived away) comes and goes.
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

public class ShopServer {
    static final String URL = "jdbc:h2:mem:shop;DB_CLOSE_DELAY=-1";
    static final int PRODUCTS = 500;
    static final int CUSTOMERS = 300;

    // The leak: nothing ever removes from these lists.
    static final Map<String, List<AuditEntry>> AUDIT_HISTORY = new ConcurrentHashMap<>();

    record Product(int id, String name, BigDecimal price) {}

    record Order(long id, String customer, Product product, int quantity, BigDecimal total, String note) {}

    record AuditEntry(Order order, String response, long nanoTime) {}

    // A bounded cache: stays the same size however long the server runs.
    static final class ProductCache extends LinkedHashMap<Integer, Product> {
        ProductCache() { super(64, 0.75f, true); }

        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, Product> eldest) { return size() > 100; }
    }

    static final class Worker extends Thread {
        final int first, count;
        final ProductCache cache = new ProductCache();
        long checksum, archived;

        Worker(String name, int first, int count) {
            super(name);
            this.first = first;
            this.count = count;
        }

        @Override
        public void run() {
            try (Connection c = DriverManager.getConnection(URL, "sa", "");
                 PreparedStatement product = c.prepareStatement("SELECT name, price FROM product WHERE id = ?");
                 PreparedStatement insert = c.prepareStatement("INSERT INTO orders VALUES(?, ?, ?, ?, ?)");
                 PreparedStatement archive = c.prepareStatement("DELETE FROM orders WHERE id BETWEEN ? AND ?")) {
                for (int i = first; i < first + count; i++) {
                    String response = handle(i, product, insert);
                    checksum += response.length();
                    if ((i - first) % 100 == 99 && i - first >= 500) {  // keep the last 500 or so orders
                        archive.setLong(1, i - 599);
                        archive.setLong(2, i - 500);
                        archived += archive.executeUpdate();
                    }
                }
            } catch (SQLException e) {
                throw new RuntimeException(e);
            }
        }

        String handle(int request, PreparedStatement productQuery, PreparedStatement insert) throws SQLException {
            int productId = (request * 7919) % PRODUCTS;
            Product p = cache.get(productId);
            if (p == null) {
                p = loadProduct(productQuery, productId);
                cache.put(productId, p);
            }
            String customer = "customer-" + (request * 31 % CUSTOMERS);
            int quantity = 1 + request % 5;
            Order order = new Order(request, customer, p, quantity, p.price().multiply(BigDecimal.valueOf(quantity)),
                                    "order " + request + " placed by " + customer + " for " + p.name());
            insert.setLong(1, order.id());
            insert.setString(2, order.customer());
            insert.setInt(3, p.id());
            insert.setInt(4, quantity);
            insert.setBigDecimal(5, order.total());
            insert.executeUpdate();
            String response = render(order);
            AUDIT_HISTORY.computeIfAbsent(customer, k -> new ArrayList<>())
                .add(new AuditEntry(order, response, System.nanoTime()));
            return response;
        }
    }

    static Product loadProduct(PreparedStatement query, int id) throws SQLException {
        query.setInt(1, id);
        try (ResultSet r = query.executeQuery()) {
            r.next();
            return new Product(id, r.getString(1), r.getBigDecimal(2));
        }
    }

    static String render(Order o) {
        Map<String, Object> fields = new HashMap<>();
        fields.put("id", o.id());
        fields.put("customer", o.customer());
        fields.put("product", o.product().name());
        fields.put("quantity", o.quantity());
        fields.put("total", o.total().toPlainString());
        StringBuilder json = new StringBuilder("{");
        for (Map.Entry<String, Object> e : fields.entrySet()) {
            if (json.length() > 1) json.append(", ");
            json.append('"').append(e.getKey()).append("\": \"").append(e.getValue()).append('"');
        }
        return json.append('}').toString();
    }

    public static void main(String[] args) throws Exception {
        int requests = args.length > 0 ? Integer.parseInt(args[0]) : 2500;
        try (Connection c = DriverManager.getConnection(URL, "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE product(id INT PRIMARY KEY, name VARCHAR(64), price DECIMAL(10,2))");
            s.execute("CREATE TABLE orders(id BIGINT PRIMARY KEY, customer VARCHAR(32), product INT, quantity INT, "
                      + "total DECIMAL(12,2))");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO product VALUES(?, ?, ?)")) {
                for (int i = 0; i < PRODUCTS; i++) {
                    p.setInt(1, i);
                    p.setString(2, "product-" + i);
                    p.setBigDecimal(3, BigDecimal.valueOf(100 + i * 37 % 9000, 2));
                    p.addBatch();
                }
                p.executeBatch();
            }
            Worker[] workers = {new Worker("http-worker-1", 0, requests / 2),
                                new Worker("http-worker-2", requests / 2, requests - requests / 2)};
            for (Worker w : workers) w.start();
            long checksum = 0, archived = 0;
            for (Worker w : workers) {
                w.join();
                checksum += w.checksum;
                archived += w.archived;
            }
            try (ResultSet r = s.executeQuery("SELECT COUNT(*), SUM(total) FROM orders")) {
                r.next();
                System.out.println(requests + " requests, " + archived + " orders archived, " + r.getLong(1)
                                   + " kept, total " + r.getBigDecimal(2)
                                   + ", response checksum " + checksum + ", audit history of "
                                   + AUDIT_HISTORY.size() + " customers");
            }
        }
    }
}
